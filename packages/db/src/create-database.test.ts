import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { createDatabase } from "./database";
import { DatabaseConnectionError, UnsupportedDatabaseUrlError } from "./errors";

/** A loopback port with nothing listening. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === "string") {
    throw new Error("no port");
  }
  return address.port;
}

describe("createDatabase bad input", () => {
  it("refuses an unknown scheme before any I/O", async () => {
    await expect(createDatabase("mysql://root@127.0.0.1/app")).rejects.toBeInstanceOf(
      UnsupportedDatabaseUrlError,
    );
  });

  it("fails fast on an unreachable postgres, naming host and port but not the password", async () => {
    const port = await closedPort();
    const started = Date.now();
    const error = await createDatabase(`postgres://u:hunter2@127.0.0.1:${port}/app`).catch(
      (caught: unknown) => caught,
    );
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error).toBeInstanceOf(DatabaseConnectionError);
    expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    expect((error as Error).message).toContain("ECONNREFUSED");
    expect((error as Error).message).not.toContain("hunter2");
    expect((error as DatabaseConnectionError).retryable).toBe(true);
    expect((error as Error).cause).toBeDefined();
  });

  it("times out on a server that accepts but never answers", async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, "127.0.0.1", resolve));
    const { port } = silent.address() as { port: number };
    try {
      const error = await createDatabase(`postgres://u@127.0.0.1:${port}/app`, {
        connectTimeoutMs: 300,
      }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DatabaseConnectionError);
      expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    } finally {
      silent.close();
    }
  });

  it("fails fast on an unreachable Neon WebSocket proxy", async () => {
    const port = await closedPort();
    const started = Date.now();
    const error = await createDatabase(`postgres://u:p@db.example:5432/app`, {
      driver: "neon",
      connectTimeoutMs: 2_000,
      neon: { wsProxy: () => `127.0.0.1:${port}/v2`, useSecureWebSocket: false, pipelineConnect: false },
    }).catch((caught: unknown) => caught);
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error).toBeInstanceOf(DatabaseConnectionError);
    expect((error as Error).message).toContain("db.example:5432");
  });
});
