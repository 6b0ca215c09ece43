import { POLICY_MODES } from "@context-cleaner/assembler/internal";
import { sql } from "drizzle-orm";
import { bigint, check, integer, jsonb, pgPolicy, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { sameOrganization } from "./organization-policy";
import { appUserRole } from "./roles";
import { isOneOf } from "./value-list";

/**
 * One org's rollout policy (docs/architecture.md#rollout-controls): its mode, its
 * overrides of the deployment's defaults (null: the deployment's value) and its tool
 * rules (JSON data), with who set it and when, as the operator gave them. No row means the
 * deployment's defaults, mode `on`. The runtime reads it in the query that loads a turn's
 * digests; the worker once per job.
 */
export const orgPolicy = pgTable(
  "org_policy",
  {
    orgId: text("org_id").primaryKey(),
    mode: text("mode", { enum: POLICY_MODES }).notNull(),
    triggerChars: integer("trigger_chars"),
    recencyKeepExchanges: integer("recency_keep_exchanges"),
    digestCharCap: integer("digest_char_cap"),
    maxCallsPerJob: integer("max_calls_per_job"),
    dailyBudgetMicroUsd: bigint("daily_budget_micro_usd", { mode: "number" }),
    toolRules: jsonb("tool_rules").$type<Record<string, unknown>>(),
    updatedBy: text("updated_by").notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull(),
  },
  (table) => [
    check("org_policy_org_id_nonempty", sql`${table.orgId} <> ''`),
    check("org_policy_mode_valid", isOneOf(table.mode, POLICY_MODES)),
    check(
      "org_policy_overrides_nonnegative",
      sql`coalesce(${table.triggerChars}, 0) >= 0 and coalesce(${table.recencyKeepExchanges}, 0) >= 0 and coalesce(${table.digestCharCap}, 1) >= 1 and coalesce(${table.maxCallsPerJob}, 0) >= 0 and coalesce(${table.dailyBudgetMicroUsd}, 0) >= 0`,
    ),
    check(
      "org_policy_tool_rules_object",
      sql`${table.toolRules} is null or jsonb_typeof(${table.toolRules}) = 'object'`,
    ),
    check("org_policy_updated_by_nonempty", sql`${table.updatedBy} <> ''`),
    pgPolicy("org_policy_org_isolation", {
      as: "permissive",
      for: "all",
      to: appUserRole,
      using: sameOrganization(table.orgId),
      withCheck: sameOrganization(table.orgId),
    }),
  ],
);
