// `npm run db:migrate`: DATABASE_URL, or the embedded PGlite database when unset.
import { runMigrateCommand } from "../src/tooling/migrate-command";

try {
  await runMigrateCommand(process.env.DATABASE_URL, process.cwd(), (line) => console.log(line));
} catch (error) {
  console.error(error instanceof Error ? `${error.name}: ${error.message}` : error);
  process.exitCode = 1;
}
