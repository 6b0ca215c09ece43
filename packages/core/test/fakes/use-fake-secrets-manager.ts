import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { afterAll, beforeAll } from "vitest";
import { type FakeSecretsManager, startFakeSecretsManager } from "./secrets-manager";

/** The fake Secrets Manager of a test file, and a real SDK client pointed at it. */
export interface FakeSecretsManagerSession {
  readonly fake: FakeSecretsManager;
  readonly client: SecretsManagerClient;
}

/**
 * Starts a {@link startFakeSecretsManager} fake before the file's tests and a client of it
 * (one attempt, test credentials, `eu-west-1`), and stops both after them. Call it at a test
 * file's top level; read `fake` and `client` inside the tests.
 */
export function useFakeSecretsManager(): FakeSecretsManagerSession {
  let fake: FakeSecretsManager | undefined;
  let client: SecretsManagerClient | undefined;
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
    client?.destroy();
    await fake?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined)
      throw new Error("the fake Secrets Manager starts before the tests: read it in one");
    return value;
  };
  return {
    get fake() {
      return started(fake);
    },
    get client() {
      return started(client);
    },
  };
}
