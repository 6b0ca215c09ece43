import { DIGEST_KINDS } from "@context-cleaner/assembler/internal";
import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgPolicy,
  pgTable,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { sameOrganization } from "./organization-policy";
import { appUserRole } from "./roles";
import { isOneOf } from "./value-list";

/**
 * One digest (or deterministic stub) of one tool result, keyed by org, thread and tool
 * call id. The primary key doubles as the index of the per-turn load
 * (`WHERE org_id = $1 AND thread_id = $2`); a second index serves hash reuse in an org.
 */
export const contextDigest = pgTable(
  "context_digest",
  {
    orgId: text("org_id").notNull(),
    threadId: text("thread_id").notNull(),
    toolCallId: text("tool_call_id").notNull(),
    kind: text("kind", { enum: DIGEST_KINDS }).notNull(),
    toolName: text("tool_name").notNull(),
    provenanceArgs: jsonb("provenance_args").$type<Record<string, unknown>>().notNull(),
    contentSha256: text("content_sha256").notNull(),
    digest: text("digest").notNull(),
    originalChars: integer("original_chars").notNull(),
    digestChars: integer("digest_chars").notNull(),
    model: text("model"),
    inputTokens: integer("input_tokens").notNull().default(0),
    outputTokens: integer("output_tokens").notNull().default(0),
    costMicroUsd: bigint("cost_micro_usd", { mode: "number" }).notNull().default(0),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    primaryKey({ name: "context_digest_pkey", columns: [table.orgId, table.threadId, table.toolCallId] }),
    index("context_digest_org_sha256_idx").on(table.orgId, table.contentSha256),
    check("context_digest_org_id_nonempty", sql`${table.orgId} <> ''`),
    check("context_digest_thread_id_nonempty", sql`${table.threadId} <> ''`),
    check("context_digest_tool_call_id_nonempty", sql`${table.toolCallId} <> ''`),
    check("context_digest_kind_valid", isOneOf(table.kind, DIGEST_KINDS)),
    check("context_digest_tool_name_nonempty", sql`${table.toolName} <> ''`),
    check("context_digest_provenance_object", sql`jsonb_typeof(${table.provenanceArgs}) = 'object'`),
    check("context_digest_sha256_hex", sql`${table.contentSha256} ~ '^[0-9a-f]{64}$'`),
    check("context_digest_digest_nonempty", sql`${table.digest} <> ''`),
    check("context_digest_original_chars_nonnegative", sql`${table.originalChars} >= 0`),
    check("context_digest_digest_chars_match", sql`${table.digestChars} = char_length(${table.digest})`),
    check(
      "context_digest_usage_nonnegative",
      sql`${table.inputTokens} >= 0 and ${table.outputTokens} >= 0 and ${table.costMicroUsd} >= 0`,
    ),
    pgPolicy("context_digest_org_isolation", {
      as: "permissive",
      for: "all",
      to: appUserRole,
      using: sameOrganization(table.orgId),
      withCheck: sameOrganization(table.orgId),
    }),
  ],
);
