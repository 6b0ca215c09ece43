/**
 * Prints the eval table: every fixture thread cleaned end to end (extractive digests on
 * embedded PGlite, then assembly), with its chars and probe retention.
 *
 *   npm run eval
 */
import { createDatabase, createDigestRepository } from "@context-cleaner/db";
import { loadFixtures } from "../fixtures/load-fixtures";
import { EVALUATION_HEADER, evaluateFixture, evaluationRow } from "./evaluate-fixture";

const database = await createDatabase("pglite://");
try {
  await database.migrate();
  const repository = createDigestRepository(database);
  console.log(EVALUATION_HEADER);
  for (const [index, fixture] of loadFixtures().entries()) {
    console.log(evaluationRow(await evaluateFixture(fixture, repository, `org-${index}`)));
  }
} finally {
  await database.close();
}
