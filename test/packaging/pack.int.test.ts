/**
 * The packages as a registry user gets them: `npm run build`, `npm pack` of each package,
 * then `npm install` of the tarballs into a scratch project outside the workspace (under the
 * OS temp folder; third-party dependencies come from npm's cache or the registry). Plain
 * Node imports every subpath; tsc type-checks a consumer under `moduleResolution` node16 and
 * bundler; the published `context-cleaner` command runs without tsx.
 *
 * Optional peers: first none is installed, as a user who needs only the main entries has
 * it. Each package's main entry must load then, and any other subpath must either load or
 * fail naming a missing optional peer of its package (never an undeclared module). Then
 * the scratch project installs every optional peer (at the workspace's versions) and every
 * subpath must load, exporting the same names as its source, and the installed
 * `context-cleaner worker` runs against the services tier (so this file runs under
 * test/services/run.sh, as `npm run test:pack` does).
 */
import { execFile } from "node:child_process";
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { builtinModules, createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { createDigestRepository } from "@context-cleaner/db";
import ts from "typescript";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFunctionServices } from "../../functions/test/services";
import { type PackageManifest, readWorkspacePackages } from "../../scripts/package-manifest";
import { requireRedisUrl, startUpstashRelay } from "../services/upstash-relay";
import { runWorkerScenario } from "../services/worker-scenario";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const PACKAGES = readWorkspacePackages(ROOT).filter(({ manifest }) => !manifest.private);
const SUBPATHS = PACKAGES.flatMap(({ manifest }) =>
  Object.keys(manifest.exports ?? {}).map((subpath) => ({
    manifest,
    specifier: subpath === "." ? manifest.name : `${manifest.name}/${subpath.slice(2)}`,
    main: subpath === ".",
  })),
);
const MINUTE = 60_000;

const execFileAsync = promisify(execFile);

/**
 * The environment of every child process: no NODE_OPTIONS (no source condition, no loader)
 * and none of the npm variables of the `npm run` that started the tests (workspace flags
 * would leak into the scratch project's installs); npm's cache and registry settings stay.
 */
function childEnvironment(): NodeJS.ProcessEnv {
  const kept = new Set(["npm_config_cache", "npm_config_registry", "npm_config_userconfig"]);
  return Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => key !== "NODE_OPTIONS" && key !== "INIT_CWD" && (!key.startsWith("npm_") || kept.has(key)),
    ),
  );
}

async function run(
  command: string,
  args: string[],
  cwd: string,
  timeout: number,
): Promise<{ stdout: string; stderr: string }> {
  try {
    return await execFileAsync(command, args, {
      cwd,
      timeout,
      env: childEnvironment(),
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const failed = error as Error & { stdout?: string; stderr?: string };
    throw new Error(
      `${command} ${args.join(" ")} failed in ${cwd}: ${failed.message}\n${failed.stdout ?? ""}\n${failed.stderr ?? ""}`,
    );
  }
}

const npmInstall = (cwd: string, specs: string[]) =>
  run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", ...specs], cwd, 4 * MINUTE);

type ImportResult = { ok: true; names: string[] } | { ok: false; code: string; message: string };

/** Imports each specifier from plain Node ESM in the scratch project, in one process. */
async function importFromNode(cwd: string, specifiers: string[]): Promise<Record<string, ImportResult>> {
  const script = `
    const results = {};
    for (const specifier of process.argv.slice(1)) {
      try {
        results[specifier] = { ok: true, names: Object.keys(await import(specifier)).sort() };
      } catch (error) {
        results[specifier] = { ok: false, code: error.code, message: String(error.message).split("\\n")[0] };
      }
    }
    console.log(JSON.stringify(results));`;
  const { stdout } = await run("node", ["--input-type=module", "-e", script, ...specifiers], cwd, MINUTE);
  return JSON.parse(stdout);
}

/** `@scope/name/sub` → `@scope/name`; `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] as string);
}

/** What a package may import: its dependencies and peers, and the modules `@types/<name>` peers declare. */
function declaredModules(manifest: PackageManifest): Set<string> {
  const names = [
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ];
  // A types-only package (`aws-lambda`) is declared by its `@types/` peer: `@types/aws-lambda`.
  const typed = names
    .filter((name) => name.startsWith("@types/"))
    .map((name) => name.slice("@types/".length));
  return new Set([...names, ...typed]);
}

/** The bare specifiers that a built .js or .d.ts file imports, re-exports or `import()`s. */
function bareImports(code: string): string[] {
  const { importedFiles } = ts.preProcessFile(code, true, true);
  return importedFiles.map(({ fileName }) => fileName).filter((name) => !/^[./]/.test(name));
}

async function listFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** The workspace's installed version of a package, so that npm finds it in its cache. */
async function workspaceVersion(name: string): Promise<string> {
  const manifest = JSON.parse(await readFile(join(ROOT, "node_modules", name, "package.json"), "utf8"));
  return manifest.version;
}

const consumerSource = (): string => {
  const imports = SUBPATHS.map(({ specifier }, index) => `import * as entry${index} from "${specifier}";`);
  const checks = SUBPATHS.map(
    (_subpath, index) => `export type NoAny${index} = Expect<NoAnyMembers<typeof entry${index}>>;`,
  );
  return `// Every subpath of the published packages, and a few typed calls.
${imports.join("\n")}
import { assembleModelView, type DigestMap } from "@context-cleaner/assembler";
import { createDatabase, createDigestRepository } from "@context-cleaner/db";

// A value export whose type a consumer cannot resolve silently becomes \`any\`.
type IsAny<T> = 0 extends 1 & T ? true : false;
type NoAnyMembers<T> = [{ [K in keyof T]-?: IsAny<T[K]> extends true ? K : never }[keyof T]] extends [never] ? true : false;
type Expect<T extends true> = T;
${checks.join("\n")}

const digests: DigestMap = new Map();
export const assembledChars: number = assembleModelView([{ role: "user", content: "hello" }], digests).report
  .assembledChars;
// @ts-expect-error a thread is an array of messages
assembleModelView(42, digests);

export async function loadDigests(orgId: string, threadId: string): Promise<DigestMap> {
  const repository = createDigestRepository(await createDatabase("pglite://"));
  return repository.loadThreadDigests(orgId, threadId);
}
`;
};

const TSCONFIGS = {
  node16: { module: "node16", moduleResolution: "node16" },
  bundler: { module: "esnext", moduleResolution: "bundler" },
} as const;

describe("the packed packages, installed from tarballs", () => {
  let scratch: string;
  let app: string;
  let packed: { name: string; files: { path: string }[] }[];

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), "context-cleaner-pack-"));
    app = join(scratch, "app");
    const tarballs = join(scratch, "tarballs");
    await mkdir(app);
    await mkdir(tarballs);
    await run("npm", ["run", "build"], ROOT, 5 * MINUTE);
    const workspaces = PACKAGES.flatMap(({ dir }) => ["--workspace", dir]);
    const { stdout } = await run(
      "npm",
      ["pack", ...workspaces, "--pack-destination", tarballs, "--json"],
      ROOT,
      2 * MINUTE,
    );
    packed = JSON.parse(stdout);
    await writeFile(
      join(app, "package.json"),
      `${JSON.stringify({ name: "scratch-consumer", private: true, type: "module" }, null, 2)}\n`,
    );
    const files = (await readdir(tarballs)).filter((file) => file.endsWith(".tgz"));
    await npmInstall(
      app,
      files.map((file) => join(tarballs, file)),
    );
  }, 12 * MINUTE);

  afterAll(async () => {
    if (scratch) await rm(scratch, { recursive: true, force: true });
  });

  it("packs dist/, package.json and the README, with every exported and bin file", () => {
    expect(packed.map(({ name }) => name).sort()).toEqual(
      PACKAGES.map(({ manifest }) => manifest.name).sort(),
    );
    for (const { name, files } of packed) {
      const paths = files.map(({ path }) => path);
      const manifest = PACKAGES.find((candidate) => candidate.manifest.name === name)
        ?.manifest as PackageManifest;
      expect(
        paths.filter((path) => !/^(dist\/|package\.json$|README\.md$)/.test(path)),
        name,
      ).toEqual([]);
      expect(
        paths.filter((path) => path.includes(".test.")),
        name,
      ).toEqual([]);
      const targets = [
        ...Object.values(manifest.exports ?? {}).flatMap((conditions) => [
          (conditions as Record<string, string>).types,
          (conditions as Record<string, string>).import,
        ]),
        ...Object.values(manifest.bin ?? {}),
      ];
      for (const target of targets)
        expect(paths, `${name}: ${target}`).toContain(target?.replace(/^\.\//, ""));
    }
    const db = packed.find(({ name }) => name === "@context-cleaner/db");
    expect(db?.files.map(({ path }) => path)).toContain("dist/migrations/meta/_journal.json");
  });

  it("imports only declared dependencies, declared peers and Node builtins", async () => {
    const builtins = new Set(builtinModules);
    for (const { manifest } of PACKAGES) {
      const installed = join(app, "node_modules", manifest.name);
      const declared = declaredModules(manifest);
      const undeclared: string[] = [];
      for (const file of await listFiles(join(installed, "dist"))) {
        if (!/\.(js|d\.ts)$/.test(file)) continue;
        for (const specifier of bareImports(await readFile(file, "utf8"))) {
          if (specifier.startsWith("node:") || builtins.has(specifier)) continue;
          if (!declared.has(packageOf(specifier)))
            undeclared.push(`${file.slice(installed.length)}: ${specifier}`);
        }
      }
      expect(undeclared, manifest.name).toEqual([]);
    }
    const assembler = JSON.parse(
      await readFile(join(app, "node_modules/@context-cleaner/assembler/package.json"), "utf8"),
    );
    expect(assembler.dependencies ?? {}).toEqual({});
  });

  it("loads every main entry with no optional peer installed; other subpaths load or name a missing optional peer", async () => {
    const results = await importFromNode(
      app,
      SUBPATHS.map(({ specifier }) => specifier),
    );
    for (const { manifest, specifier, main } of SUBPATHS) {
      const result = results[specifier] as ImportResult;
      if (main || result.ok) {
        expect(result, specifier).toMatchObject({ ok: true });
        continue;
      }
      expect(result.code, `${specifier}: ${result.message}`).toBe("ERR_MODULE_NOT_FOUND");
      const missing = /Cannot find package '([^']+)'/.exec(result.message)?.[1];
      expect(Object.keys(manifest.peerDependencies ?? {}), `${specifier}: ${result.message}`).toContain(
        missing,
      );
    }
  });

  it(
    "runs the published context-cleaner command with plain Node",
    async () => {
      const bin = join(app, "node_modules", ".bin", "context-cleaner");
      const help = await run(bin, ["help"], app, MINUTE);
      expect(help.stdout).toContain("context-cleaner clean <thread.json>");

      const fixtures = join(ROOT, "test/fixtures/threads");
      const fixture = (await readdir(fixtures)).filter((file) => file.endsWith(".json")).sort()[0] as string;
      await copyFile(join(fixtures, fixture), join(app, "thread.json"));
      const { stdout } = await run(bin, ["clean", "thread.json", "--json"], app, 2 * MINUTE);
      const { report } = JSON.parse(stdout);
      // The worker digested on embedded PGlite, migrated from the package's own migrations.
      expect(report.digest.digestsWritten).toBeGreaterThan(0);
      expect(report.assembledChars).toBeLessThan(report.rawChars);
    },
    3 * MINUTE,
  );

  describe("with every optional peer installed", () => {
    beforeAll(async () => {
      const peers = new Set(["typescript", "@types/node"]);
      for (const { manifest } of PACKAGES) {
        for (const peer of Object.keys(manifest.peerDependencies ?? {})) peers.add(peer);
      }
      const specs = await Promise.all(
        [...peers].map(async (peer) => `${peer}@${await workspaceVersion(peer)}`),
      );
      await npmInstall(app, specs);
      await writeFile(join(app, "consumer.ts"), consumerSource());
      for (const [mode, options] of Object.entries(TSCONFIGS)) {
        const tsconfig = {
          compilerOptions: {
            ...options,
            target: "ES2022",
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ["node"],
          },
          files: ["consumer.ts"],
        };
        await writeFile(join(app, `tsconfig.${mode}.json`), JSON.stringify(tsconfig, null, 2));
      }
    }, 6 * MINUTE);

    it("imports every subpath from plain Node ESM, with the names its source exports", async () => {
      const results = await importFromNode(
        app,
        SUBPATHS.map(({ specifier }) => specifier),
      );
      for (const { specifier } of SUBPATHS) {
        const fromSource = Object.keys(await import(/* @vite-ignore */ specifier)).sort();
        expect(results[specifier], specifier).toEqual({ ok: true, names: fromSource });
      }
    });

    it.each(Object.keys(TSCONFIGS))(
      "type-checks a consumer of every subpath with tsc, moduleResolution %s",
      async (mode) => {
        const tsc = join(app, "node_modules", ".bin", "tsc");
        const { stdout } = await run(tsc, ["-p", `tsconfig.${mode}.json`], app, 3 * MINUTE);
        expect(stdout).toBe("");
      },
      3 * MINUTE,
    );

    it(
      "runs the installed worker command against the services tier's Postgres, Redis and SQS emulator",
      async () => {
        const services = await startFunctionServices("pack-worker");
        const upstash = await startUpstashRelay(requireRedisUrl());
        try {
          const installed = {
            command: join(app, "node_modules", ".bin", "context-cleaner"),
            args: [],
            cwd: app,
          };
          await runWorkerScenario(installed, services, createDigestRepository(services.database), upstash);
        } finally {
          await upstash.close();
          await services.close();
        }
      },
      4 * MINUTE,
    );

    it(
      "ships declaration files that type-check under node16, every import resolved",
      async () => {
        // The consumers above skip library checks, as most do; here the packages' own .d.ts
        // files are checked too (third-party declarations are left to their authors).
        const require = createRequire(join(app, "package.json"));
        const ts = (await import(pathToFileURL(require.resolve("typescript")).href)).default;
        const program = ts.createProgram([join(app, "consumer.ts")], {
          module: ts.ModuleKind.Node16,
          moduleResolution: ts.ModuleResolutionKind.Node16,
          target: ts.ScriptTarget.ES2022,
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
        });
        const ours = program
          .getSourceFiles()
          .filter((file: { fileName: string }) => file.fileName.includes("/node_modules/@context-cleaner/"));
        expect(ours.length).toBeGreaterThanOrEqual(SUBPATHS.length);
        const problems = ours.flatMap((file: { fileName: string }) =>
          program
            .getSemanticDiagnostics(file)
            .map(
              (diagnostic: { messageText: unknown }) =>
                `${file.fileName.slice(app.length)}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n")}`,
            ),
        );
        expect(problems).toEqual([]);
      },
      3 * MINUTE,
    );

    it(
      "type-checks a consumer of the storage entries with skipLibCheck: false, no driver declarations pulled in",
      async () => {
        // Every declaration file the program loads is checked, third-party ones included: the
        // storage package's public types must not reach drizzle-orm's or PGlite's.
        await writeFile(
          join(app, "standalone.ts"),
          [
            'import { createDatabase, createDigestRepository } from "@context-cleaner/db";',
            'import { createNeonDatabase } from "@context-cleaner/db/neon";',
            'import { createServerDatabase } from "@context-cleaner/db/server";',
            "export async function open(url: string | undefined) {",
            "  const repository = createDigestRepository(await createDatabase(url));",
            '  return repository.loadThreadDigests("org", "thread");',
            "}",
            "export const openers = [createNeonDatabase, createServerDatabase];",
            "",
          ].join("\n"),
        );
        const require = createRequire(join(app, "package.json"));
        const ts = (await import(pathToFileURL(require.resolve("typescript")).href)).default;
        const program = ts.createProgram([join(app, "standalone.ts")], {
          module: ts.ModuleKind.Node16,
          moduleResolution: ts.ModuleResolutionKind.Node16,
          target: ts.ScriptTarget.ES2022,
          strict: true,
          noEmit: true,
          skipLibCheck: false,
          types: ["node"],
        });
        const loaded = program.getSourceFiles().map((file: { fileName: string }) => file.fileName);
        expect(
          loaded.filter((name: string) => /node_modules\/(drizzle-orm|@electric-sql)\//.test(name)),
        ).toEqual([]);
        const problems = ts
          .getPreEmitDiagnostics(program)
          .map((diagnostic: { messageText: unknown }) =>
            ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n"),
          );
        expect(problems).toEqual([]);
      },
      3 * MINUTE,
    );
  });
});
