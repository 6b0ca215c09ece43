import type { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";

/** The secrets the functions may use, by name. */
export type SecretName =
  | "anthropicApiKey"
  | "openAiCompatibleApiKey"
  | "databaseUrl"
  | "checkpointDatabaseUrl"
  | "redisUrl"
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
  redisUrl: "REDIS_URL",
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
 * A function's settings as the settings table's reader takes them: its environment (empty
 * variables dropped), over the linked resources' defaults, under its secrets, each secret
 * under its variable's name (`DATABASE_URL`, …).
 */
export function functionEnvironment(
  environment: Readonly<Record<string, string | undefined>>,
  secrets: FunctionSecrets,
  defaults: Readonly<Record<string, string>> = {},
): Record<string, string> {
  const merged: Record<string, string> = { ...defaults };
  for (const [name, value] of Object.entries(environment)) if (value) merged[name] = value;
  for (const [name, key] of Object.entries(SECRET_RECORD_KEYS) as [SecretName, string][]) {
    const value = secrets[name];
    if (value) merged[key] = value;
  }
  return merged;
}
