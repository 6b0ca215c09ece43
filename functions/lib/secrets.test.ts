import { describe, expect, it } from "vitest";
import { useFakeSecretsManager } from "../../packages/core/test/fakes/use-fake-secrets-manager";
import { functionEnvironment, secretsFromSecretsManager } from "./secrets";

const ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:context-cleaner-AbCdEf";
const secretsManager = useFakeSecretsManager();

describe("secretsFromSecretsManager", () => {
  it("maps the secret's keys to the functions' secrets, leaving out absent and empty ones", async () => {
    secretsManager.fake.secrets.set(ARN, {
      kind: "string",
      value: JSON.stringify({
        DATABASE_URL: "postgres://app@db.example/app",
        CHECKPOINT_DATABASE_URL: "postgres://reader@db.example/agent",
        ANTHROPIC_API_KEY: "",
        UNRELATED: "x",
      }),
    });
    expect(await secretsFromSecretsManager(ARN, secretsManager.client)).toEqual({
      databaseUrl: "postgres://app@db.example/app",
      checkpointDatabaseUrl: "postgres://reader@db.example/agent",
    });
    expect(secretsManager.fake.requests).toEqual([ARN]);
  });

  it("gives the settings reader the environment, over the linked defaults, under the secrets by variable name", () => {
    expect(
      functionEnvironment(
        { CHECKPOINT_SCHEMA: "agent", DIGEST_QUEUE_URL: "", DATABASE_URL: "postgres://from-env" },
        { databaseUrl: "postgres://from-secret", upstashRedisUrl: "" },
        { DIGEST_QUEUE_URL: "https://sqs.example/q.fifo" },
      ),
    ).toEqual({
      CHECKPOINT_SCHEMA: "agent",
      DIGEST_QUEUE_URL: "https://sqs.example/q.fifo",
      DATABASE_URL: "postgres://from-secret",
    });
  });
});
