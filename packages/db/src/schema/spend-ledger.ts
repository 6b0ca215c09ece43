import { sql } from "drizzle-orm";
import { bigint, check, date, pgPolicy, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { sameOrganization } from "./organization-policy";
import { appUserRole } from "./roles";

/**
 * Per-org, per-UTC-day model spend in integer micro-USD, so sums never drift.
 * `reserved` is held by calls in flight; `spent` is settled actual cost.
 */
export const spendLedger = pgTable(
  "spend_ledger",
  {
    orgId: text("org_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    reservedMicroUsd: bigint("reserved_micro_usd", { mode: "number" }).notNull().default(0),
    spentMicroUsd: bigint("spent_micro_usd", { mode: "number" }).notNull().default(0),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ name: "spend_ledger_pkey", columns: [table.orgId, table.day] }),
    check("spend_ledger_org_id_nonempty", sql`${table.orgId} <> ''`),
    check("spend_ledger_reserved_nonnegative", sql`${table.reservedMicroUsd} >= 0`),
    check("spend_ledger_spent_nonnegative", sql`${table.spentMicroUsd} >= 0`),
    pgPolicy("spend_ledger_org_isolation", {
      as: "permissive",
      for: "all",
      to: appUserRole,
      using: sameOrganization(table.orgId),
      withCheck: sameOrganization(table.orgId),
    }),
  ],
);
