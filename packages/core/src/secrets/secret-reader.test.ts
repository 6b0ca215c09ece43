import { beforeEach, describe, expect, it } from "vitest";
import { useFakeSecretsManager } from "#test/core/fakes/use-fake-secrets-manager";
import { SecretReadError } from "../errors";
import { createSecretReader } from "./secret-reader";

const ARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:context-cleaner-AbCdEf";
const secretsManager = useFakeSecretsManager();

beforeEach(() => {
  secretsManager.fake.requests.length = 0;
  secretsManager.fake.secrets.clear();
});

async function readError(promise: Promise<unknown>): Promise<SecretReadError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SecretReadError);
  return error as SecretReadError;
}

describe("createSecretReader", () => {
  it("reads the JSON record once, through the real client, and serves it from memory after", async () => {
    secretsManager.fake.secrets.set(ARN, {
      kind: "string",
      value: '{"ANTHROPIC_API_KEY":"sk-test","DATABASE_URL":"postgres://x"}',
    });
    const secrets = createSecretReader({ client: secretsManager.client, secretArn: ARN });

    const [first, second] = await Promise.all([secrets.read(), secrets.read()]);
    expect(first).toEqual({ ANTHROPIC_API_KEY: "sk-test", DATABASE_URL: "postgres://x" });
    expect(second).toBe(first);
    expect(await secrets.get("DATABASE_URL")).toBe("postgres://x");
    expect(secretsManager.fake.requests).toEqual([ARN]);
  });

  it("does not keep a failure: the next read fetches again", async () => {
    secretsManager.fake.secrets.set(ARN, { kind: "error", status: 500, type: "InternalServiceError" });
    const secrets = createSecretReader({ client: secretsManager.client, secretArn: ARN });

    const error = await readError(secrets.read());
    expect(error).toMatchObject({ reason: "unavailable", retryable: true, secretId: ARN });

    secretsManager.fake.secrets.set(ARN, { kind: "string", value: '{"KEY":"value"}' });
    expect(await secrets.get("KEY")).toBe("value");
    expect(secretsManager.fake.requests).toEqual([ARN, ARN]);
  });

  it("says when the secret does not exist or may not be read", async () => {
    expect(
      await readError(createSecretReader({ client: secretsManager.client, secretArn: "missing" }).read()),
    ).toMatchObject({
      reason: "not_found",
      retryable: false,
    });
    secretsManager.fake.secrets.set(ARN, { kind: "error", status: 400, type: "AccessDeniedException" });
    expect(
      await readError(createSecretReader({ client: secretsManager.client, secretArn: ARN }).read()),
    ).toMatchObject({
      reason: "access_denied",
      retryable: false,
    });
  });

  it("refuses a value that is not a record of strings, without quoting the secret", async () => {
    const cases = ["sk-live-not-json", '["sk-live-array"]', '{"KEY":42}', "null"];
    for (const value of cases) {
      secretsManager.fake.secrets.set(ARN, { kind: "string", value });
      const error = await readError(
        createSecretReader({ client: secretsManager.client, secretArn: ARN }).read(),
      );
      expect(error.reason).toBe("not_a_record");
      expect(error.message).not.toContain("sk-live");
      expect(String(error.cause ?? "")).not.toContain("sk-live");
    }
    secretsManager.fake.secrets.set(ARN, { kind: "binary" });
    expect(
      (await readError(createSecretReader({ client: secretsManager.client, secretArn: ARN }).read())).message,
    ).toMatch(/binary/);
  });

  it("names a missing key", async () => {
    secretsManager.fake.secrets.set(ARN, { kind: "string", value: '{"KEY":"value"}' });
    const error = await readError(
      createSecretReader({ client: secretsManager.client, secretArn: ARN }).get("OTHER"),
    );
    expect(error.message).toContain('"OTHER"');
  });
});
