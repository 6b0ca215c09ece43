import { randomUUID } from "node:crypto";
import pg from "pg";

/**
 * The services tier's Postgres URL (`test/services/run.sh` exports it).
 * @throws when unset, saying how to run the tier.
 */
export function requireTestPostgresUrl(): string {
  const url = process.env.TEST_POSTGRES_URL;
  if (!url) {
    throw new Error("TEST_POSTGRES_URL is not set: run the services tier with `npm run test:services`.");
  }
  return url;
}

/** A scratch database in the test cluster, dropped by `drop()`. */
export interface ScratchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Creates an empty database next to `adminUrl`'s (roles are cluster-wide; tables are not). */
export async function createScratchDatabase(adminUrl: string, label = "cc"): Promise<ScratchDatabase> {
  const name = `${label}_${randomUUID().replaceAll("-", "").slice(0, 12)}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create database "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      try {
        await dropper.query(`drop database if exists "${name}" with (force)`);
      } finally {
        await dropper.end();
      }
    },
  };
}

/** Runs statements in one transaction on a pool; returns the rows of the last one. */
export async function runInTransaction(
  pool: pg.Pool,
  statements: readonly string[],
): Promise<Record<string, unknown>[]> {
  const client = await pool.connect();
  try {
    await client.query("begin");
    let rows: Record<string, unknown>[] = [];
    for (const statement of statements) {
      rows = (await client.query(statement)).rows;
    }
    await client.query("commit");
    return rows;
  } catch (error) {
    await client.query("rollback").catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
