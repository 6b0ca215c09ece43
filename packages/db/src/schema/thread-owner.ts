import { sql } from "drizzle-orm";
import { check, pgPolicy, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { sameOrganization } from "./organization-policy";
import { appSweeperRole, appUserRole } from "./roles";

/**
 * The org that owns each thread, for apps whose checkpoint metadata a client can influence:
 * the runtime writes the row when it creates the thread (first writer wins, never changed),
 * and every digest job is checked against it. Keyed by thread id alone, since a thread id
 * names one thread across orgs. An org sees only its own rows; the worker and the sweep read
 * the owner of any thread as `app_sweeper`, which sees these two columns and nothing else.
 */
export const threadOwner = pgTable(
  "thread_owner",
  {
    threadId: text("thread_id").primaryKey(),
    orgId: text("org_id").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [
    check("thread_owner_org_id_nonempty", sql`${table.orgId} <> ''`),
    check("thread_owner_thread_id_nonempty", sql`${table.threadId} <> ''`),
    pgPolicy("thread_owner_org_isolation", {
      as: "permissive",
      for: "all",
      to: appUserRole,
      using: sameOrganization(table.orgId),
      withCheck: sameOrganization(table.orgId),
    }),
    pgPolicy("thread_owner_sweeper_read", {
      as: "permissive",
      for: "select",
      to: appSweeperRole,
      using: sql`true`,
    }),
  ],
);
