import type { Database as DrizzleBackedDatabase } from "./database-types";
import type { Database } from "./public-types";

/**
 * The public face of a database handle: the same object, typed without the query
 * builder's declarations.
 */
export function publicDatabase(database: DrizzleBackedDatabase): Database {
  return database as unknown as Database;
}
