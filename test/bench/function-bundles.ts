/**
 * The Lambda functions as SST bundles them (sst.config.ts): each entry, the packages
 * installed beside the bundle instead of bundled (`nodejs.install`), and code splitting.
 */
export interface FunctionBundle {
  name: string;
  entry: string;
  /** `nodejs.install` in sst.config.ts: external to the bundle, installed into its node_modules. */
  install: readonly string[];
  /** `nodejs.splitting`: dynamically imported modules go to chunks loaded on first use. */
  splitting: boolean;
}

export const FUNCTION_BUNDLES: readonly FunctionBundle[] = [
  {
    name: "digest",
    entry: "functions/digest.ts",
    install: ["@langchain/core", "@langchain/langgraph-checkpoint-postgres", "pg"],
    splitting: true,
  },
  { name: "sweep", entry: "functions/sweep.ts", install: [], splitting: true },
];

/**
 * SST's own esbuild settings for a `nodejs22.x` function when deployed: ESM, platform node,
 * target ES2023, minified, names kept, no source maps; `sharp` and `pg-native` always
 * external; nothing else external by default (the AWS SDK is bundled, not taken from the
 * runtime). The banner gives ESM bundles `require`, `__filename` and `__dirname`.
 */
export const SST_ESBUILD_DEFAULTS = {
  platform: "node",
  format: "esm",
  target: "es2023",
  minify: true,
  keepNames: true,
  mainFields: ["module", "main"],
  forceExternal: ["sharp", "pg-native"],
  banner: [
    "import { createRequire as topLevelCreateRequire } from 'module';",
    "const require = topLevelCreateRequire(import.meta.url);",
    'import { fileURLToPath as topLevelFileUrlToPath, URL as topLevelURL } from "url";',
    "const __filename = topLevelFileUrlToPath(import.meta.url);",
    'const __dirname = topLevelFileUrlToPath(new topLevelURL(".", import.meta.url));',
  ].join("\n"),
} as const;

/** Inputs that must never reach a function bundle, with why. */
export const FORBIDDEN_INPUTS: readonly { pattern: RegExp; why: string }[] = [
  {
    pattern: /node_modules\/@electric-sql\/pglite\//,
    why: "the embedded PGlite engine (functions use Neon)",
  },
  {
    pattern: /node_modules\/@langchain\//,
    why: "LangChain/LangGraph (installed beside the bundle, loaded on first read)",
  },
  { pattern: /node_modules\/langchain\//, why: "LangChain" },
  { pattern: /node_modules\/(vitest|@vitest|fast-check|fauxqs)\//, why: "test tooling" },
  { pattern: /(^|\/)test\/|\.test\.ts$/, why: "test code" },
];
