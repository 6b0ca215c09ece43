import { spawn } from "node:child_process";
import { cp, mkdtemp, readdir, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { defaultMigrationsFolder } from "../migrations-folder";

/** Options of {@link checkMigrationDrift}. */
export interface MigrationDriftOptions {
  /** @default packages/db/src/schema/index.ts */
  schemaPath?: string;
  /** @default the repository's `migrations/` */
  migrationsFolder?: string;
  /** @default 120000 */
  timeoutMs?: number;
}

/** The outcome: `inSync` when drizzle-kit generates nothing new from the schema. */
export interface MigrationDrift {
  inSync: boolean;
  /** Files drizzle-kit would add (SQL and snapshots). */
  newFiles: string[];
  /** drizzle-kit's output, for the failure message. */
  output: string;
}

const DEFAULTS = {
  schemaPath: fileURLToPath(new URL("../schema/index.ts", import.meta.url)),
  timeoutMs: 120_000,
} as const;

/**
 * Runs `drizzle-kit generate` into a temporary copy of `migrations/` and reports whether it
 * produced anything: no database, no service, nothing written to the repository.
 */
export async function checkMigrationDrift(options: MigrationDriftOptions = {}): Promise<MigrationDrift> {
  const migrationsFolder = options.migrationsFolder ?? defaultMigrationsFolder();
  const workDir = await mkdtemp(join(tmpdir(), "context-cleaner-drift-"));
  const copy = join(workDir, "migrations");
  try {
    await cp(migrationsFolder, copy, { recursive: true });
    const before = new Set(await listFiles(copy));
    // drizzle-kit prefixes `--out` with "./": pass it relative to the child's cwd.
    const { code, output } = await runDrizzleKit(
      [
        "generate",
        "--dialect",
        "postgresql",
        "--schema",
        options.schemaPath ?? DEFAULTS.schemaPath,
        "--out",
        "migrations",
      ],
      workDir,
      options.timeoutMs ?? DEFAULTS.timeoutMs,
    );
    const newFiles = (await listFiles(copy)).filter((file) => !before.has(file));
    // drizzle-kit exits 0 even when it fails to read the folder, and has no machine-readable
    // result: require its explicit "nothing to migrate" too, so a broken run never passes.
    const confirmed = /No schema changes/i.test(output);
    return { inSync: code === 0 && newFiles.length === 0 && confirmed, newFiles, output };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

function runDrizzleKit(
  args: string[],
  cwd: string,
  timeoutMs: number,
): Promise<{ code: number | null; output: string }> {
  const require = createRequire(import.meta.url);
  const bin = join(dirname(require.resolve("drizzle-kit")), "bin.cjs");
  return new Promise((resolve, reject) => {
    // stdin closed: a rename prompt must fail the check, not hang it. The schema imports
    // workspace packages: the source condition resolves them to their TypeScript sources
    // (drizzle-kit compiles those), not to builds that may not exist.
    const child = spawn(process.execPath, ["--conditions=@context-cleaner/source", bin, ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      timeout: timeoutMs,
    });
    let output = "";
    child.stdout.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString("utf8");
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, output }));
  });
}
