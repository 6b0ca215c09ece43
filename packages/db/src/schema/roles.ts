import { pgRole } from "drizzle-orm/pg-core";

/**
 * The application role: every org-scoped query runs as this role (`SET LOCAL ROLE`), so
 * row-level security applies. It neither owns the tables nor bypasses RLS. Created, with
 * its grants, by the custom migration `0000_roles`, never by drizzle-kit.
 */
export const appUserRole = pgRole("app_user").existing();

/**
 * The nightly sweep's role: it may read only the pass record's routing columns
 * (org, thread, status, reason, turn times) of every org, and nothing else.
 */
export const appSweeperRole = pgRole("app_sweeper").existing();

/** Role names as they appear in SQL. */
export const ROLE_NAMES = { app: "app_user", sweeper: "app_sweeper" } as const;
