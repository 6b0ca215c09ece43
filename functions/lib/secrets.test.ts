import { describe, expect, it } from "vitest";
import { useFakeSecretsManager } from "../../packages/core/test/fakes/use-fake-secrets-manager";
import { requireSecret, secretsFromSecretsManager } from "./secrets";

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

  it("names a secret the function cannot run without", () => {
    expect(() => requireSecret({}, "databaseUrl", "secret arn:x")).toThrow(
      "secret databaseUrl is missing from secret arn:x",
    );
    expect(requireSecret({ databaseUrl: "postgres://x" }, "databaseUrl", "here")).toBe("postgres://x");
  });
});
