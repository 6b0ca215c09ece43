/**
 * What every entry of the storage package exports alike (the main one, `./server` and
 * `./neon`): the repository, its types and the errors. One list, so the entries never drift.
 */
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
export { createDigestRepository } from "./public-database";
export type { Database, ScopedTransaction } from "./public-types";
export type {
  DigestKind,
  DigestRepository,
  DigestRowInput,
  LatestTurnInput,
  LeasedPassCommit,
  LeasedPassInput,
  LeftBehindFilter,
  LeftBehindPage,
  LeftBehindQuery,
  LeftBehindReason,
  LeftBehindThread,
  OrgDigestSummary,
  OrgPurgeOptions,
  OrgPurgeResult,
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
