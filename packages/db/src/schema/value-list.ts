import { type SQL, sql } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";

const PLAIN_VALUE = /^[a-z_-]+$/;

/**
 * `column in ('a', 'b')` for a CHECK constraint, from a vocabulary list. Values are
 * inlined as literals (a constraint takes no parameters), so only plain lowercase words
 * are accepted.
 */
export function isOneOf(column: PgColumn, values: readonly string[]): SQL {
  for (const value of values) {
    if (!PLAIN_VALUE.test(value)) {
      throw new Error(`not a plain vocabulary value: ${JSON.stringify(value)}`);
    }
  }
  return sql`${column} in (${sql.raw(values.map((value) => `'${value}'`).join(", "))})`;
}
