import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { DatabaseConnectionError, UnsupportedDatabaseUrlError } from "./errors";
import { createDigestRepository, createNeonDatabase } from "./neon";

/** A loopback port with nothing listening. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("createNeonDatabase", () => {
  it("refuses a URL no Neon endpoint serves, before any I/O", async () => {
    await expect(createNeonDatabase("pglite://")).rejects.toBeInstanceOf(UnsupportedDatabaseUrlError);
    await expect(createNeonDatabase("mysql://root@db.example/app")).rejects.toBeInstanceOf(
      UnsupportedDatabaseUrlError,
    );
  });

  it("says an unreachable endpoint is unreachable, retryable, without the password, on the first operation", async () => {
    const port = await closedPort();
    const database = await createNeonDatabase(`postgres://u:hunter2@127.0.0.1:${port}/app`, {
      connectTimeoutMs: 1_000,
      neon: {
        wsProxy: () => `127.0.0.1:${port}/v2`,
        useSecureWebSocket: false,
        pipelineTLS: false,
        pipelineConnect: false,
      },
    });
    try {
      const error = await createDigestRepository(database)
        .getPass("org-1", "thread-1")
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DatabaseConnectionError);
      expect(error).toMatchObject({ driver: "neon", retryable: true });
      expect((error as Error).message).toContain("ECONNREFUSED");
      expect((error as Error).message).not.toContain("hunter2");
    } finally {
      await database.close();
    }
  });

  it("checks at open with checkConnection", async () => {
    const port = await closedPort();
    const error = await createNeonDatabase(`postgres://u@127.0.0.1:${port}/app`, {
      checkConnection: true,
      connectTimeoutMs: 1_000,
      neon: { wsProxy: () => `127.0.0.1:${port}/v2`, useSecureWebSocket: false, pipelineConnect: false },
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabaseConnectionError);
  });
});
