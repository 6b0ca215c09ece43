// `npm run build`: each publishable package under packages/ bundles to ESM JavaScript with
// source maps and one bundled .d.ts per entry under its dist/. The entries come from the
// package's own package.json (every `exports` subpath and every `bin`, see
// scripts/package-manifest.ts), so a new subpath needs no change here.
import { fileURLToPath } from "node:url";
import { defineConfig, type UserConfig } from "tsdown";
import { buildEntries, readWorkspacePackages } from "./scripts/package-manifest.ts";

const ROOT = fileURLToPath(new URL(".", import.meta.url));

/**
 * Every bare specifier stays an import: dependencies, optional peers and the sibling
 * packages are installed next to the package, never copied into it (the assembler keeps
 * zero runtime dependencies and reaches its framework peers only through its subpaths).
 * Only the package's own relative imports are bundled.
 */
function isExternal(id: string): boolean {
  return !id.startsWith(".") && !id.startsWith("/") && !id.startsWith("\0");
}

/** Per package: files copied into dist/ besides the bundles. */
const EXTRA_FILES: Record<string, UserConfig["copy"]> = {
  // The SQL migrations ship with the storage package: `database.migrate()` applies them
  // from dist/migrations when installed from the registry.
  "@context-cleaner/db": [{ from: "../../migrations", to: "dist" }],
};

export default defineConfig(
  readWorkspacePackages(ROOT)
    .filter(({ manifest }) => !manifest.private)
    .map(
      ({ dir, manifest }): UserConfig => ({
        name: manifest.name,
        cwd: dir,
        entry: buildEntries(manifest),
        outDir: "dist",
        format: "esm",
        platform: "node",
        target: "node22",
        fixedExtension: false,
        sourcemap: true,
        dts: true,
        deps: { neverBundle: isExternal },
        tsconfig: fileURLToPath(new URL("tsconfig.json", import.meta.url)),
        copy: EXTRA_FILES[manifest.name],
        logLevel: "warn",
        // The declaration build is the slow part by design (it runs the type checker).
        checks: { pluginTimings: false },
      }),
    ),
);
