export type { SecretReadReason } from "../errors";
export { SecretReadError } from "../errors";
export type { SecretReader, SecretReaderOptions, SecretRecord } from "./secret-reader";
export { createSecretReader } from "./secret-reader";
