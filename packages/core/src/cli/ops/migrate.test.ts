import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDatabase, createDigestRepository } from "@context-cleaner/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../main";

// `context-cleaner migrate` through the command line's entry, with its real context: an
// embedded PGlite database on disk stands for the digest database.
let directory: string;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), "cc-migrate-"));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function run(argv: string[], environment: Record<string, string | undefined> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, {
    stdout: (text) => out.push(text),
    stderr: (text) => err.push(text),
    environment,
  });
  return { code, stdout: out.join(""), stderr: err.join("") };
}

/** Whether the database at `url` has the digest tables: a repository query runs on it. */
async function migrated(url: string): Promise<boolean> {
  const database = await createDatabase(url);
  try {
    await createDigestRepository(database).loadThreadDigests("acme", "t-1");
    return true;
  } catch {
    return false;
  } finally {
    await database.close();
  }
}

describe("context-cleaner migrate", () => {
  it("applies the migrations to --database-url, and again is a no-op", async () => {
    const url = `pglite://${join(directory, "flag")}`;
    expect(await migrated(url)).toBe(false);
    const first = await run(["migrate", "--database-url", url]);
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout).toContain("Migrations applied");
    expect(await migrated(url)).toBe(true);
    expect(await run(["migrate", "--database-url", url])).toMatchObject({ code: 0, stderr: "" });
  });

  it("reads DATABASE_URL when no flag is given, and takes --database as the worker does", async () => {
    const fromEnvironment = `pglite://${join(directory, "environment")}`;
    expect(await run(["migrate"], { DATABASE_URL: fromEnvironment })).toMatchObject({ code: 0 });
    expect(await migrated(fromEnvironment)).toBe(true);
    const alias = `pglite://${join(directory, "alias")}`;
    expect(await run(["migrate", "--database", alias])).toMatchObject({ code: 0 });
    expect(await migrated(alias)).toBe(true);
  });

  it("without a database, names the flag and the variable in one line, exit 2", async () => {
    const result = await run(["migrate"], { DATABASE_URL: "" });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr: "context-cleaner: migrate needs the database: --database-url <url> or DATABASE_URL\n",
    });
  });

  it("refuses a driver other than neon or pg, an argument and an unknown flag, exit 2", async () => {
    const url = `pglite://${join(directory, "refused")}`;
    const driver = await run(["migrate", "--database-url", url, "--database-driver", "mysql"]);
    expect(driver.code).toBe(2);
    expect(driver.stderr).toMatch(
      /^context-cleaner: --database-driver \(or CONTEXT_CLEANER_DB_DRIVER\) must be one of neon, pg/,
    );
    expect((await run(["migrate", "extra"], { DATABASE_URL: url })).code).toBe(2);
    expect((await run(["migrate", "--dry-run"], { DATABASE_URL: url })).code).toBe(2);
    expect(await migrated(url)).toBe(false);
  });

  it("--help names the settings and what the command does; help lists it", async () => {
    const help = await run(["migrate", "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: context-cleaner migrate \[--database-url <url>\]/);
    for (const name of ["DATABASE_URL", "CONTEXT_CLEANER_DB_DRIVER", "--database-driver", "app_user"])
      expect(help.stdout).toContain(name);
    expect((await run(["help"])).stdout).toContain("context-cleaner migrate [--database-url <url>]");
  });

  it("a database out of reach is one line, exit 1", async () => {
    const result = await run(["migrate", "--database-url", "postgres://nobody@127.0.0.1:1/none"]);
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).toMatch(/^context-cleaner: (?!unexpected failure)/);
  });
});
