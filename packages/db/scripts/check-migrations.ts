// `npm run db:check`: fails when packages/db/src/schema and migrations/ disagree.
import { checkMigrationDrift } from "../src/tooling/migration-drift";

const drift = await checkMigrationDrift();
if (drift.inSync) {
  console.log("migrations/ matches the drizzle schema.");
} else {
  console.error(
    "migrations/ does not match the drizzle schema: run `npm run db:generate` and commit the result.",
  );
  for (const file of drift.newFiles) {
    console.error(`  would add ${file.replace(/^.*\/migrations\//, "migrations/")}`);
  }
  console.error(drift.output);
  process.exitCode = 1;
}
