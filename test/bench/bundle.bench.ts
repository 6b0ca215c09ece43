/**
 * `npm run bench:bundle`: bundles each Lambda function the way SST does (see
 * function-bundles.ts), reports its size and how long node takes to import it (a cold
 * start's module load, median of several fresh processes), and fails (exit 1) when a
 * bundle carries PGlite, LangChain/LangGraph or test code.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Metafile } from "esbuild";
import {
  FORBIDDEN_INPUTS,
  FUNCTION_BUNDLES,
  type FunctionBundle,
  SST_ESBUILD_DEFAULTS,
} from "./function-bundles";

const ROOT = resolve(import.meta.dirname, "../..");
// Inside the repository, so packages installed beside a bundle resolve from node_modules.
const OUT = join(ROOT, "node_modules/.cache/bundle-bench");
const RUNS = 7;

interface BundleReport {
  name: string;
  entryBytes: number;
  /** The entry and the chunks it imports statically: what a cold start loads. */
  startupBytes: number;
  totalBytes: number;
  files: number;
  importMs: number;
  deferredImportMs: number | undefined;
  violations: string[];
  externals: string[];
  topInputs: [string, number][];
}

const BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

function packageOf(path: string): string {
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  return match?.[1] ?? path.split("/").slice(0, 3).join("/");
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Milliseconds a fresh node process spends importing `specifiers`, median of {@link RUNS}. */
function importTime(specifiers: readonly string[], cwd: string): number {
  const script = `const started = performance.now();
for (const specifier of ${JSON.stringify(specifiers)}) await import(specifier);
process.stdout.write(String(performance.now() - started));`;
  const samples: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const output = execFileSync(process.execPath, ["--input-type=module", "--no-warnings", "-e", script], {
      cwd,
      encoding: "utf8",
      env: { ...process.env, AWS_REGION: "eu-west-1", NODE_OPTIONS: "" },
    });
    samples.push(Number(output));
  }
  return median(samples);
}

function startupOutputs(metafile: Metafile, entryOutput: string): Set<string> {
  const loaded = new Set([entryOutput]);
  const pending = [entryOutput];
  while (pending.length > 0) {
    const output = metafile.outputs[pending.pop() as string];
    for (const imported of output?.imports ?? []) {
      if (
        imported.kind === "import-statement" &&
        metafile.outputs[imported.path] &&
        !loaded.has(imported.path)
      ) {
        loaded.add(imported.path);
        pending.push(imported.path);
      }
    }
  }
  return loaded;
}

async function bundle(fn: FunctionBundle): Promise<BundleReport> {
  const outdir = join(OUT, fn.name);
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: [fn.entry],
    bundle: true,
    platform: SST_ESBUILD_DEFAULTS.platform,
    format: SST_ESBUILD_DEFAULTS.format,
    target: SST_ESBUILD_DEFAULTS.target,
    minify: SST_ESBUILD_DEFAULTS.minify,
    keepNames: SST_ESBUILD_DEFAULTS.keepNames,
    mainFields: [...SST_ESBUILD_DEFAULTS.mainFields],
    external: [...SST_ESBUILD_DEFAULTS.forceExternal, ...fn.install],
    banner: { js: SST_ESBUILD_DEFAULTS.banner },
    splitting: fn.splitting,
    outdir,
    entryNames: "bundle",
    outExtension: { ".js": ".mjs" },
    metafile: true,
    logLevel: "error",
  });
  const { metafile } = result;
  const outputs = Object.entries(metafile.outputs);
  const [entryOutput, entry] = outputs.find(([, output]) => output.entryPoint === fn.entry) ?? [];
  if (entryOutput === undefined || entry === undefined) throw new Error(`${fn.name}: no entry output`);

  const violations: string[] = [];
  for (const input of Object.keys(metafile.inputs)) {
    for (const { pattern, why } of FORBIDDEN_INPUTS) {
      if (pattern.test(input)) violations.push(`${input}: ${why}`);
    }
  }
  const externals = new Set<string>();
  for (const [, output] of outputs) {
    for (const imported of output.imports) {
      if (imported.external && !BUILTINS.has(imported.path)) externals.add(imported.path);
    }
  }
  const startup = startupOutputs(metafile, entryOutput);
  const byPackage = new Map<string, number>();
  let startupBytes = 0;
  for (const path of startup) {
    const output = metafile.outputs[path];
    startupBytes += output?.bytes ?? 0;
    for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
      byPackage.set(packageOf(input), (byPackage.get(packageOf(input)) ?? 0) + bytesInOutput);
    }
  }
  const entryPath = join(ROOT, entryOutput);
  // The module must load and export the handler, as Lambda's runtime needs it.
  const exported = execFileSync(
    process.execPath,
    [
      "--input-type=module",
      "--no-warnings",
      "-e",
      `const m = await import(${JSON.stringify(pathToFileURL(entryPath).href)}); process.stdout.write(typeof m.handler);`,
    ],
    { cwd: outdir, encoding: "utf8" },
  );
  if (exported !== "function") violations.push(`${entryOutput}: exports no handler function (${exported})`);
  return {
    name: fn.name,
    entryBytes: readFileSync(entryPath).byteLength,
    startupBytes,
    totalBytes: outputs.reduce((sum, [, output]) => sum + output.bytes, 0),
    files: outputs.length,
    importMs: importTime([pathToFileURL(entryPath).href], outdir),
    deferredImportMs: fn.install.length > 0 ? importTime(fn.install, outdir) : undefined,
    violations,
    externals: [...externals].sort(),
    topInputs: [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 8),
  };
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`;
let failed = false;
for (const fn of FUNCTION_BUNDLES) {
  const report = await bundle(fn);
  console.log(`\n${report.name} (${fn.entry})`);
  console.log(
    `  bundle: entry ${kb(report.entryBytes)}, loaded at cold start ${kb(report.startupBytes)}, all ${report.files} files ${kb(report.totalBytes)}`,
  );
  console.log(`  import at cold start: ${report.importMs.toFixed(0)} ms (median of ${RUNS} fresh processes)`);
  if (report.deferredImportMs !== undefined) {
    console.log(
      `  installed beside the bundle, loaded on the first checkpoint read: ${fn.install.join(", ")} (${report.deferredImportMs.toFixed(0)} ms)`,
    );
  }
  console.log(
    `  largest at cold start: ${report.topInputs.map(([name, bytes]) => `${name} ${kb(bytes)}`).join(", ")}`,
  );
  console.log(`  external imports: ${report.externals.join(", ") || "none"}`);
  for (const violation of report.violations) {
    console.log(`  FORBIDDEN ${violation}`);
    failed = true;
  }
}
if (failed) {
  console.error("\nbench:bundle: a function bundle carries what it must not (see FORBIDDEN above)");
  process.exit(1);
}
