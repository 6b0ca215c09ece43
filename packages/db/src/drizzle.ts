/**
 * `@context-cleaner/db/drizzle`: the drizzle-orm side of the storage package, for queries
 * of your own inside `withOrganization` / `withSweeper`. Its declarations are drizzle-orm's,
 * which do not type-check with `skipLibCheck: false`; the main entry's need none of them.
 */
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import type { ScopedTransaction } from "./public-types";

export { contextDigest, spendLedger, threadOwner, threadPass } from "./schema/index";

/** The drizzle-orm transaction every driver's scoped transaction is. */
export type DrizzleTransaction = Parameters<Parameters<PgDatabase<PgQueryResultHKT>["transaction"]>[0]>[0];

/**
 * The drizzle-orm transaction behind a {@link ScopedTransaction} (the same object).
 * @example
 * await database.withOrganization(orgId, (scoped) =>
 *   drizzleTransaction(scoped).select().from(contextDigest).where(eq(contextDigest.threadId, threadId)),
 * );
 */
export function drizzleTransaction(transaction: ScopedTransaction): DrizzleTransaction {
  return transaction as unknown as DrizzleTransaction;
}
