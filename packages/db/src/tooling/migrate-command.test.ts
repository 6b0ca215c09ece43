import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UnsupportedDatabaseUrlError } from "../errors";
import { runMigrateCommand } from "./migrate-command";

const workDir = await mkdtemp(join(tmpdir(), "cc-migrate-"));

afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe("db:migrate", () => {
  it("defaults to an embedded PGlite under .context-cleaner/pglite and says so", async () => {
    const lines: string[] = [];
    // (Applying twice is covered by the conformance suite; opening PGlite on disk costs seconds.)
    await runMigrateCommand("", workDir, (line) => lines.push(line));
    const dataDir = join(workDir, ".context-cleaner", "pglite");
    expect(lines[0]).toBe(`DATABASE_URL is not set: using the embedded PGlite database at ${dataDir}`);
    expect(lines.filter((line) => line.startsWith("Migrations applied"))).toHaveLength(1);
    expect(await readdir(dataDir)).toContain("PG_VERSION");
  });

  it("refuses an unknown scheme instead of falling back to PGlite", async () => {
    await expect(
      runMigrateCommand("mysql://root@localhost/app", workDir, () => undefined),
    ).rejects.toBeInstanceOf(UnsupportedDatabaseUrlError);
  });
});
