import { GetSecretValueCommand, type SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { SecretReadError } from "../errors";

/** A secret's key/value pairs, as Secrets Manager's console stores them. */
export type SecretRecord = Readonly<Record<string, string>>;

export interface SecretReaderOptions {
  /** The Secrets Manager client (region and credentials are the caller's). */
  client: Pick<SecretsManagerClient, "send">;
  /** ARN (or name) of a secret whose value is a JSON object of string values. */
  secretArn: string;
}

export interface SecretReader {
  /**
   * The secret's key/value pairs: fetched at the first call, then served from memory for
   * the life of the process (one fetch per Lambda container). A failed fetch is not kept:
   * the next call tries again.
   *
   * @throws {SecretReadError}
   */
  read(): Promise<SecretRecord>;
  /**
   * One value of the secret.
   *
   * @throws {SecretReadError} when the secret cannot be read or has no such key.
   */
  get(key: string): Promise<string>;
}

function fromSdkError(secretId: string, error: unknown): SecretReadError {
  const name = (error as { name?: string } | null)?.name;
  if (name === "ResourceNotFoundException") {
    return new SecretReadError(`secret ${secretId} does not exist`, {
      reason: "not_found",
      secretId,
      retryable: false,
      cause: error,
    });
  }
  if (name === "AccessDeniedException" || name === "DecryptionFailure") {
    return new SecretReadError(`secret ${secretId} cannot be read with these credentials (${name})`, {
      reason: "access_denied",
      secretId,
      retryable: false,
      cause: error,
    });
  }
  return new SecretReadError(`secret ${secretId} could not be fetched: ${name ?? "unknown error"}`, {
    reason: "unavailable",
    secretId,
    retryable: true,
    cause: error,
  });
}

function parseRecord(secretId: string, text: string | undefined): SecretRecord {
  const notARecord = (problem: string) =>
    new SecretReadError(`secret ${secretId} ${problem}`, {
      reason: "not_a_record",
      secretId,
      retryable: false,
    });
  if (text === undefined) throw notARecord("has no string value (a binary secret?)");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parse error quotes the text: do not keep it.
    throw notARecord("is not JSON");
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw notARecord("is not a JSON object");
  }
  for (const [key, entry] of Object.entries(value)) {
    if (typeof entry !== "string") throw notARecord(`has a non-string value under ${JSON.stringify(key)}`);
  }
  return Object.freeze({ ...(value as Record<string, string>) });
}

/**
 * Reads a JSON secret from AWS Secrets Manager once per process.
 *
 * @example
 * ```ts
 * const secrets = createSecretReader({ client: new SecretsManagerClient({}), secretArn: process.env.SECRET_ARN });
 * const apiKey = await secrets.get("ANTHROPIC_API_KEY");
 * ```
 */
export function createSecretReader(options: SecretReaderOptions): SecretReader {
  const { client, secretArn } = options;
  let pending: Promise<SecretRecord> | undefined;

  async function fetchRecord(): Promise<SecretRecord> {
    let text: string | undefined;
    try {
      const output = await client.send(new GetSecretValueCommand({ SecretId: secretArn }));
      text = output.SecretString;
    } catch (error) {
      throw fromSdkError(secretArn, error);
    }
    return parseRecord(secretArn, text);
  }

  const reader: SecretReader = {
    read() {
      pending ??= fetchRecord().catch((error: unknown) => {
        pending = undefined;
        throw error;
      });
      return pending;
    },
    async get(key) {
      const record = await reader.read();
      const value = record[key];
      if (value === undefined) {
        throw new SecretReadError(`secret ${secretArn} has no key ${JSON.stringify(key)}`, {
          reason: "not_a_record",
          secretId: secretArn,
          retryable: false,
        });
      }
      return value;
    },
  };
  return reader;
}
