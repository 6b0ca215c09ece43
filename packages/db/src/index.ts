export { PASS_STATUSES } from "@context-cleaner/assembler/internal";
export type { DatabaseDriver } from "./database-url";
export { DATABASE_DRIVERS, resolveDatabaseTarget } from "./database-url";
export type { NeonSettings } from "./drivers/neon-settings";
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
export { createDatabase } from "./public-api";
export { createDigestRepository } from "./public-database";
export type { Database, DatabaseOptions, PgliteInstance, ScopedTransaction } from "./public-types";
export type {
  DigestKind,
  DigestRepository,
  DigestRowInput,
  LatestTurnInput,
  LeftBehindPage,
  LeftBehindQuery,
  LeftBehindReason,
  LeftBehindThread,
  OrgDigestSummary,
  PassInput,
  PassRecord,
  PassStatus,
  PolicyAudit,
  PurgeResult,
  SpendReservation,
  StoredDigest,
  ThreadClaim,
  ThreadClaimInput,
  ThreadDigestSummary,
  ThreadKey,
  ThreadPassCoverage,
} from "./repository-types";
