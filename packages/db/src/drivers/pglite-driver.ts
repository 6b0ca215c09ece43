import { mkdir } from "node:fs/promises";
import { PGlite } from "@electric-sql/pglite";
import { drizzle } from "drizzle-orm/pglite";
import { migrate } from "drizzle-orm/pglite/migrator";
import { DatabaseConnectionError } from "../errors";
import type { PgliteInstance } from "../public-types";
import { type DriverConnection, toDriverConnection } from "./driver-connection";

/**
 * Opens PGlite: an injected instance (the caller keeps ownership), a data dir (created
 * if missing) or, without either, an in-memory database.
 * @throws {DatabaseConnectionError} when PGlite cannot open the data dir.
 */
export async function connectPglite(
  dataDir: string | undefined,
  instance?: PgliteInstance,
): Promise<DriverConnection> {
  // An injected instance is a PGlite: the public option names it structurally.
  let client = instance as PGlite | undefined;
  if (client === undefined) {
    try {
      if (dataDir !== undefined) {
        await mkdir(dataDir, { recursive: true });
      }
      client = await PGlite.create(dataDir);
    } catch (error) {
      throw new DatabaseConnectionError("pglite", dataDir ?? "memory", String(error), error);
    }
  }
  const owned = instance === undefined;
  const opened = client;
  return toDriverConnection(
    drizzle({ client }),
    migrate,
    async () => undefined, // embedded: open once it is created
    async () => {
      if (owned) {
        await opened.close();
      }
    },
  );
}
