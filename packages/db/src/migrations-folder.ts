import { fileURLToPath } from "node:url";

/** The repository's `migrations/` folder (drizzle-kit output), resolved from this file. */
export function defaultMigrationsFolder(): string {
  return fileURLToPath(new URL("../../../migrations", import.meta.url));
}
