import { cp, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { defaultMigrationsFolder } from "../migrations-folder";
import { checkMigrationDrift } from "./migration-drift";

describe("checkMigrationDrift (db:check)", () => {
  it("passes when migrations/ matches the schema", async () => {
    const drift = await checkMigrationDrift();
    expect(drift.newFiles).toEqual([]);
    expect(drift.inSync).toBe(true);
  });

  it("fails when the schema has something migrations/ lacks, writing nothing to the repository", async () => {
    const drift = await checkMigrationDrift({
      schemaPath: fileURLToPath(new URL("../../test/fixtures/drifted-schema.ts", import.meta.url)),
    });
    expect(drift.inSync).toBe(false);
    expect(drift.newFiles.some((file) => file.endsWith(".sql"))).toBe(true);
    const repeat = await checkMigrationDrift();
    expect(repeat.inSync).toBe(true);
  });

  it("fails when drizzle-kit cannot read migrations/ (a corrupt snapshot), instead of passing silently", async () => {
    const folder = await mkdtemp(join(tmpdir(), "drift-broken-"));
    try {
      await cp(defaultMigrationsFolder(), folder, { recursive: true });
      await writeFile(join(folder, "meta", "0002_snapshot.json"), "{ not json");
      expect((await checkMigrationDrift({ migrationsFolder: folder })).inSync).toBe(false);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
