import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";

/** The secrets the functions may use, by name. */
export type SecretName =
  | "anthropicApiKey"
  | "openAiCompatibleApiKey"
  | "databaseUrl"
  | "checkpointDatabaseUrl"
  | "upstashRedisUrl"
  | "upstashRedisToken";

export type FunctionSecrets = Partial<Record<SecretName, string>>;

/**
 * The keys of a Secrets Manager secret (a JSON object of strings) that hold each secret,
 * when the functions read one secret by ARN instead of SST's linked secrets.
 */
export const SECRET_RECORD_KEYS: Readonly<Record<SecretName, string>> = {
  anthropicApiKey: "ANTHROPIC_API_KEY",
  openAiCompatibleApiKey: "OPENAI_COMPATIBLE_API_KEY",
  databaseUrl: "DATABASE_URL",
  checkpointDatabaseUrl: "CHECKPOINT_DATABASE_URL",
  upstashRedisUrl: "UPSTASH_REDIS_REST_URL",
  upstashRedisToken: "UPSTASH_REDIS_REST_TOKEN",
};

/**
 * The functions' secrets from one Secrets Manager secret, read once (the caller builds
 * its handler once per container). The SDK client and the reader load only on this path.
 *
 * @throws {SecretReadError} when the secret cannot be read or is not a JSON object of strings.
 */
export async function secretsFromSecretsManager(
  secretArn: string,
  client?: Pick<SecretsManagerClient, "send">,
): Promise<FunctionSecrets> {
  const { createSecretReader } = await import("@context-cleaner/core/secrets");
  const secretsClient =
    client ?? new (await import("@aws-sdk/client-secrets-manager")).SecretsManagerClient({});
  const reader = createSecretReader({ client: secretsClient, secretArn });
  const record = await reader.read();
  const secrets: FunctionSecrets = {};
  for (const [name, key] of Object.entries(SECRET_RECORD_KEYS) as [SecretName, string][]) {
    const value = record[key];
    if (value !== undefined && value !== "") secrets[name] = value;
  }
  return secrets;
}

/**
 * A secret the function cannot run without.
 * @throws {Error} naming the secret and where it was looked for.
 */
export function requireSecret(secrets: FunctionSecrets, name: SecretName, source: string): string {
  const value = secrets[name];
  if (value === undefined || value === "") {
    throw new Error(`secret ${name} is missing from ${source}`);
  }
  return value;
}
