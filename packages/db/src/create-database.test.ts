import { createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createDatabase } from "./database";
import { createDigestRepository } from "./digest-repository";
import { DatabaseConnectionError, MissingDatabaseUrlError, UnsupportedDatabaseUrlError } from "./errors";

/** How many times the embedded PGlite driver was asked to open a database. */
const pgliteOpens = vi.hoisted(() => ({ count: 0 }));

vi.mock("./drivers/pglite-driver", async (importOriginal) => {
  const actual = await importOriginal<typeof import("./drivers/pglite-driver")>();
  return {
    ...actual,
    connectPglite: (...args: Parameters<typeof actual.connectPglite>) => {
      pgliteOpens.count += 1;
      return actual.connectPglite(...args);
    },
  };
});

/** Longer than any test may run: a check that waited for it would never settle in time. */
const NEVER_MS = 3_600_000;

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

const servers: Server[] = [];
const sockets: Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A loopback listener that runs `onConnection` for each client; closed after the test. */
async function listen(onConnection: (socket: Socket) => void): Promise<number> {
  const server = createServer((socket) => {
    sockets.push(socket);
    onConnection(socket);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return (server.address() as { port: number }).port;
}

/**
 * A Postgres wire-protocol ErrorResponse, as a server refusing a login sends it (FATAL,
 * SQLSTATE and message fields).
 */
function errorResponse(sqlState: string, message: string): Buffer {
  const fields = Buffer.concat(
    [
      ["S", "FATAL"],
      ["V", "FATAL"],
      ["C", sqlState],
      ["M", message],
    ].map(([type, value]) => Buffer.from(`${type}${value}\0`, "utf8")),
  );
  const body = Buffer.concat([fields, Buffer.from([0])]);
  const header = Buffer.alloc(5);
  header.write("E", 0, "ascii");
  header.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([header, body]);
}

/** Fails the first operation: the repository's per-turn load. */
function firstOperation(database: Awaited<ReturnType<typeof createDatabase>>): Promise<unknown> {
  return createDigestRepository(database)
    .loadThreadDigests("org-1", "thread-1")
    .catch((caught: unknown) => caught);
}

describe("createDatabase bad input", () => {
  it("refuses an unknown scheme before any I/O", async () => {
    await expect(createDatabase("mysql://root@127.0.0.1/app")).rejects.toBeInstanceOf(
      UnsupportedDatabaseUrlError,
    );
  });

  it.each([
    ["undefined", undefined],
    ["empty", ""],
    ["blank", "  "],
  ])("refuses an %s URL instead of opening an embedded database", async (_label, url) => {
    const opensBefore = pgliteOpens.count;
    const error = await createDatabase(url).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MissingDatabaseUrlError);
    expect(error).toMatchObject({ code: "missing_database_url", retryable: false });
    expect((error as Error).message).toContain("DATABASE_URL");
    expect((error as Error).message).toContain("pglite://");
    // No embedded PGlite was opened in its place.
    expect(pgliteOpens.count).toBe(opensBefore);
  });
});

describe("createDatabase connects on the first operation", () => {
  it("opens without connecting: a server that never answers is not reached until the first operation", async () => {
    let connections = 0;
    let reached: () => void = () => undefined;
    const connected = new Promise<"connected">((resolve) => {
      reached = () => resolve("connected");
    });
    const port = await listen(() => {
      connections += 1;
      reached();
    });
    const opening = createDatabase(`postgres://u@127.0.0.1:${port}/app`, { connectTimeoutMs: NEVER_MS });
    // Opening waited on the server if the server saw a connection before the database opened.
    const first = await Promise.race([opening.then(() => "opened" as const), connected]);
    expect(first).toBe("opened");
    const database = await opening;
    try {
      await new Promise((resolve) => setImmediate(resolve));
      expect(connections).toBe(0);
    } finally {
      await database.close();
    }
  });

  it("opens a server database that is down, and each operation fails naming host, port and cause", async () => {
    const port = await closedPort();
    const database = await createDatabase(`postgres://u:hunter2@127.0.0.1:${port}/app`);
    try {
      for (let attempt = 0; attempt < 2; attempt += 1) {
        const error = await firstOperation(database);
        expect(error).toBeInstanceOf(DatabaseConnectionError);
        expect((error as Error).message).toContain(`127.0.0.1:${port}`);
        expect((error as Error).message).toContain("ECONNREFUSED");
        expect((error as Error).message).not.toContain("hunter2");
        expect((error as Error).message).not.toContain("[object Object]");
        expect((error as DatabaseConnectionError).retryable).toBe(true);
        expect((error as Error).cause).toBeDefined();
      }
    } finally {
      await database.close();
    }
  });

  it("checks at open with checkConnection, failing fast on an unreachable postgres", async () => {
    const port = await closedPort();
    // With a connect timeout longer than the test may run, only the refusal itself can end the check.
    const error = await createDatabase(`postgres://u:hunter2@127.0.0.1:${port}/app`, {
      checkConnection: true,
      connectTimeoutMs: NEVER_MS,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DatabaseConnectionError);
    expect((error as Error).message).toContain("ECONNREFUSED");
    expect((error as Error).message).not.toMatch(/no answer within|timeout/i);
  });

  it("times out on a server that accepts but never answers", async () => {
    const port = await listen(() => undefined);
    const database = await createDatabase(`postgres://u@127.0.0.1:${port}/app`, { connectTimeoutMs: 300 });
    try {
      const error = await firstOperation(database);
      expect(error).toBeInstanceOf(DatabaseConnectionError);
      expect((error as Error).message).toContain(`127.0.0.1:${port}`);
    } finally {
      await database.close();
    }
  });

  it("names the server's refusal of the password: its SQLSTATE and message", async () => {
    const port = await listen((socket) => {
      socket.once("data", () => {
        socket.end(errorResponse("28P01", 'password authentication failed for user "app"'));
      });
    });
    const database = await createDatabase(`postgres://app:wrong@127.0.0.1:${port}/app`);
    try {
      const error = await firstOperation(database);
      expect(error).toBeInstanceOf(DatabaseConnectionError);
      expect((error as Error).message).toContain("SQLSTATE 28P01");
      expect((error as Error).message).toContain('password authentication failed for user "app"');
      expect((error as Error).message).not.toContain("wrong");
    } finally {
      await database.close();
    }
  });

  it("names the cause behind the Neon driver's WebSocket error event, never [object Object]", async () => {
    const port = await closedPort();
    // Longer than the test may run: the error must come from the refused WebSocket, not a timer.
    const database = await createDatabase(`postgres://u:p@db.example:5432/app`, {
      driver: "neon",
      connectTimeoutMs: NEVER_MS,
      neon: { wsProxy: () => `127.0.0.1:${port}/v2`, useSecureWebSocket: false, pipelineConnect: false },
    });
    try {
      const error = await firstOperation(database);
      expect(error).toBeInstanceOf(DatabaseConnectionError);
      expect((error as Error).message).toContain("db.example:5432");
      expect((error as Error).message).not.toContain("[object Object]");
      expect((error as Error).message).toContain("ECONNREFUSED");
      expect((error as Error).message).not.toMatch(/no answer within|timeout/i);
    } finally {
      await database.close();
    }
  });
});
