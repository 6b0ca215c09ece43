export { PASS_STATUSES } from "@context-cleaner/assembler/internal";
export type { DatabaseOptions } from "./database";
export { createDatabase } from "./database";
export type { Database, ScopedTransaction } from "./database-types";
export type { DatabaseDriver } from "./database-url";
export { DATABASE_DRIVERS, resolveDatabaseTarget } from "./database-url";
export { createDigestRepository } from "./digest-repository";
export type { NeonSettings } from "./drivers/neon-driver";
export {
  ConstraintViolationError,
  DatabaseConnectionError,
  DatabaseNotMigratedError,
  DatabaseQueryError,
  DataExceptionError,
  InvalidStorageInputError,
  MigrationPrivilegeError,
  MissingDatabaseUrlError,
  MissingOrganizationError,
  RowSecurityError,
  StorageError,
  UnsupportedDatabaseUrlError,
} from "./errors";
export { defaultMigrationsFolder } from "./migrations-folder";
export type {
  DigestKind,
  DigestRepository,
  DigestRowInput,
  LeftBehindPage,
  LeftBehindQuery,
  LeftBehindReason,
  LeftBehindThread,
  PassInput,
  PassRecord,
  PassStatus,
  SpendReservation,
  StoredDigest,
  ThreadClaim,
  ThreadClaimInput,
  ThreadDigestSummary,
  ThreadKey,
} from "./repository-types";
export { contextDigest, spendLedger, threadPass } from "./schema/index";
