import { PASS_STATUSES } from "@context-cleaner/assembler/internal";
import { sql } from "drizzle-orm";
import { check, index, integer, pgPolicy, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { sameOrganization } from "./organization-policy";
import { appSweeperRole, appUserRole } from "./roles";
import { isOneOf } from "./value-list";

/**
 * The latest digest pass of each thread: what it covered (for coalescing queued events)
 * and how it ended (for the nightly sweep).
 */
export const threadPass = pgTable(
  "thread_pass",
  {
    orgId: text("org_id").notNull(),
    threadId: text("thread_id").notNull(),
    status: text("status", { enum: PASS_STATUSES }).notNull(),
    reason: text("reason"),
    coveredTurnEndedAt: timestamp("covered_turn_ended_at", { withTimezone: true }),
    latestTurnEndedAt: timestamp("latest_turn_ended_at", { withTimezone: true }),
    rawToolChars: integer("raw_tool_chars").notNull().default(0),
    digestsWritten: integer("digests_written").notNull().default(0),
    recordedAt: timestamp("recorded_at", { withTimezone: true }).notNull(),
    /** The run that holds the thread's lease (claimed before any paid call), or null. */
    leaseOwner: text("lease_owner"),
    /** When the lease lapses on its own, if its holder died. */
    leaseExpiresAt: timestamp("lease_expires_at", { withTimezone: true }),
  },
  (table) => [
    primaryKey({ name: "thread_pass_pkey", columns: [table.orgId, table.threadId] }),
    index("thread_pass_recorded_at_idx").on(table.recordedAt),
    check("thread_pass_org_id_nonempty", sql`${table.orgId} <> ''`),
    check("thread_pass_thread_id_nonempty", sql`${table.threadId} <> ''`),
    check("thread_pass_status_valid", isOneOf(table.status, PASS_STATUSES)),
    check("thread_pass_counts_nonnegative", sql`${table.rawToolChars} >= 0 and ${table.digestsWritten} >= 0`),
    check(
      "thread_pass_lease_complete",
      sql`(${table.leaseOwner} is null and ${table.leaseExpiresAt} is null) or (${table.leaseOwner} <> '' and ${table.leaseExpiresAt} is not null)`,
    ),
    pgPolicy("thread_pass_org_isolation", {
      as: "permissive",
      for: "all",
      to: appUserRole,
      using: sameOrganization(table.orgId),
      withCheck: sameOrganization(table.orgId),
    }),
    // The sweep reads every org's routing columns; its column grants (0002) keep it
    // away from everything else.
    pgPolicy("thread_pass_sweeper_read", {
      as: "permissive",
      for: "select",
      to: appSweeperRole,
      using: sql`true`,
    }),
  ],
);
