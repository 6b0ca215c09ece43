export type { SecretReader, SecretReaderOptions, SecretReadReason, SecretRecord } from "./secret-reader";
export { createSecretReader, SecretReadError } from "./secret-reader";
