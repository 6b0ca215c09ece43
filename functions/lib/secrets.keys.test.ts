import { settingRows } from "@context-cleaner/core/worker";
import { describe, expect, it } from "vitest";
import { useFakeSecretsManager } from "../../packages/core/test/fakes/use-fake-secrets-manager";
import { SECRET_RECORD_KEYS, secretsFromSecretsManager } from "./secrets";

const ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:context-cleaner-keys";
const secretsManager = useFakeSecretsManager();

describe("the functions' secret record", () => {
  it("reads each secret from its documented key", async () => {
    secretsManager.fake.secrets.set(ARN, {
      kind: "string",
      value: JSON.stringify({
        ANTHROPIC_API_KEY: "sk-ant",
        OPENAI_COMPATIBLE_API_KEY: "sk-oai",
        DATABASE_URL: "postgres://app",
        CHECKPOINT_DATABASE_URL: "postgres://reader",
        REDIS_URL: "redis://default:pw@cache.example:6379",
        UPSTASH_REDIS_REST_URL: "https://redis.example",
        UPSTASH_REDIS_REST_TOKEN: "token",
      }),
    });
    expect(await secretsFromSecretsManager(ARN, secretsManager.client)).toStrictEqual({
      anthropicApiKey: "sk-ant",
      openAiCompatibleApiKey: "sk-oai",
      databaseUrl: "postgres://app",
      checkpointDatabaseUrl: "postgres://reader",
      redisUrl: "redis://default:pw@cache.example:6379",
      upstashRedisUrl: "https://redis.example",
      upstashRedisToken: "token",
    });
  });

  it("leaves out the secrets the record does not hold, key and all", async () => {
    secretsManager.fake.secrets.set(ARN, {
      kind: "string",
      value: JSON.stringify({ DATABASE_URL: "postgres://app" }),
    });
    expect(Object.keys(await secretsFromSecretsManager(ARN, secretsManager.client))).toEqual(["databaseUrl"]);
  });

  it("holds exactly the settings table's secrets, under their variable names", () => {
    const secretRows = settingRows()
      .filter((row) => row.secret)
      .map((row) => row.env);
    expect(Object.values(SECRET_RECORD_KEYS).sort()).toEqual([...secretRows].sort());
  });
});
