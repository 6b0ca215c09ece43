import { type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";

/**
 * The org predicate of every RLS policy. `current_setting(..., true)` returns `''` (not
 * NULL) once a transaction that set it has ended, hence the `nullif`: an unset org
 * matches no row.
 */
export function sameOrganization(column: PgColumn): SQL {
  return sql`${column} = nullif(current_setting('app.organization_id', true), '')`;
}
