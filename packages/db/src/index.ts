export { PASS_STATUSES } from "@context-cleaner/assembler/internal";
export type { DatabaseDriver } from "./database-url";
export { DATABASE_DRIVERS, resolveDatabaseTarget } from "./database-url";
export * from "./entry-exports";
export { defaultMigrationsFolder } from "./migrations-folder";
export { createDatabase } from "./public-api";
export type { DatabaseOptions, PgliteInstance } from "./public-types";
