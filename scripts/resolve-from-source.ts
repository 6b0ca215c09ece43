import { defaultClientConditions, defaultServerConditions } from "vite";

// Tests run the workspace packages from their TypeScript sources: the
// "@context-cleaner/source" export condition (first in every subpath of their package.json)
// comes before vite's default conditions, which stay for every other package. Vitest also
// hands the server list to its Node workers as `--conditions` flags, so it leaves out vite's
// "module": Node would then pick bundler-only builds of dependencies (e.g. the AWS SDK's
// dist-es, whose relative imports have no extensions).
const SOURCE_CONDITION = "@context-cleaner/source";
export const resolveFromSource = {
  resolve: { conditions: [SOURCE_CONDITION, ...defaultClientConditions] },
  ssr: {
    resolve: {
      conditions: [SOURCE_CONDITION, ...defaultServerConditions.filter((name) => name !== "module")],
    },
  },
};
