import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type FakeSecretsManager,
  startFakeSecretsManager,
} from "../../packages/core/test/fakes/secrets-manager";
import { requireSecret, secretsFromSecretsManager } from "./secrets";

const ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:context-cleaner-AbCdEf";
let fake: FakeSecretsManager;
let client: SecretsManagerClient;

beforeAll(async () => {
  fake = await startFakeSecretsManager();
  client = new SecretsManagerClient({
    endpoint: fake.url,
    region: "eu-west-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
    maxAttempts: 1,
  });
});

afterAll(async () => {
  client.destroy();
  await fake.close();
});

describe("secretsFromSecretsManager", () => {
  it("maps the secret's keys to the functions' secrets, leaving out absent and empty ones", async () => {
    fake.secrets.set(ARN, {
      kind: "string",
      value: JSON.stringify({
        DATABASE_URL: "postgres://app@db.example/app",
        CHECKPOINT_DATABASE_URL: "postgres://reader@db.example/agent",
        ANTHROPIC_API_KEY: "",
        UNRELATED: "x",
      }),
    });
    expect(await secretsFromSecretsManager(ARN, client)).toEqual({
      databaseUrl: "postgres://app@db.example/app",
      checkpointDatabaseUrl: "postgres://reader@db.example/agent",
    });
    expect(fake.requests).toEqual([ARN]);
  });

  it("names a secret the function cannot run without", () => {
    expect(() => requireSecret({}, "databaseUrl", "secret arn:x")).toThrow(
      "secret databaseUrl is missing from secret arn:x",
    );
    expect(requireSecret({ databaseUrl: "postgres://x" }, "databaseUrl", "here")).toBe("postgres://x");
  });
});
