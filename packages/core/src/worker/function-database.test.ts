import { createServer } from "node:net";
import { createDatabase } from "@context-cleaner/db";
import { describe, expect, it } from "vitest";
import { checkDatabaseMigrated, openFunctionDatabase } from "./function-database";

/** A loopback port with nothing listening. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const relay = { wsProxy: () => "127.0.0.1:1/v2", useSecureWebSocket: false, pipelineConnect: false } as const;

describe("the functions' database driver", () => {
  it.each([
    ["a Postgres that is not Neon (RDS, a container, local)", {}, "postgres"],
    ["Neon settings given (a WebSocket relay)", { neon: relay }, "neon"],
    ["an explicit driver", { databaseDriver: "neon" as const, neon: relay }, "neon"],
    ["an explicit pg driver over Neon settings", { databaseDriver: "pg" as const, neon: relay }, "postgres"],
  ])("%s → %s, checked at start, naming the real cause", async (_label, settings, driver) => {
    const port = await closedPort();
    const error = await openFunctionDatabase({
      databaseUrl: `postgres://app:hunter2@127.0.0.1:${port}/app`,
      ...settings,
    }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: "DatabaseConnectionError", driver, retryable: true });
    expect((error as Error).message).toContain("ECONNREFUSED");
    expect((error as Error).message).not.toContain("[object Object]");
    expect((error as Error).message).not.toContain("hunter2");
  });
});

describe("the functions' database at start", () => {
  it("refuses a database that is not migrated, as it refuses a wrong password, and takes a migrated one", async () => {
    const database = await createDatabase("pglite://");
    try {
      const error = await checkDatabaseMigrated(database).catch((caught: unknown) => caught);
      expect(error).toMatchObject({ name: "DatabaseNotMigratedError", retryable: false });
      await database.migrate();
      await expect(checkDatabaseMigrated(database)).resolves.toBeUndefined();
    } finally {
      await database.close();
    }
  });
});
