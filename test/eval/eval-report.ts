/**
 * Prints the eval table: every fixture thread cleaned end to end (extractive digests on
 * embedded PGlite, then assembly), with its chars and probe retention.
 *
 *   npm run eval
 */
import { createDatabase, createDigestRepository } from "@context-cleaner/db";
import { loadFixtures } from "../fixtures/load-fixtures";
import {
  EVALUATION_HEADER,
  evaluateFixture,
  evaluationRow,
  type FixtureEvaluation,
  recallHeader,
  recallRows,
} from "./evaluate-fixture";

const database = await createDatabase("pglite://");
try {
  await database.migrate();
  const repository = createDigestRepository(database);
  console.log(EVALUATION_HEADER);
  const evaluations: FixtureEvaluation[] = [];
  for (const [index, fixture] of loadFixtures().entries()) {
    const evaluation = await evaluateFixture(fixture, repository, `org-${index}`);
    evaluations.push(evaluation);
    console.log(evaluationRow(evaluation));
  }
  const [first] = evaluations;
  if (first) {
    console.log(
      `\nread_original: probes not in view that the scripted agent recovered by following the view's handle\n`,
    );
    console.log(recallHeader(first));
    for (const evaluation of evaluations) for (const row of recallRows(evaluation)) console.log(row);
  }
} finally {
  await database.close();
}
