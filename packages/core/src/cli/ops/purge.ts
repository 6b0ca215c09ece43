import { parseArgs } from "node:util";
import { createDigestRepository } from "@context-cleaner/db";
import { databaseUrlOf, type OpsContext, required, withDatabase } from "./ops-context";

/**
 * `context-cleaner purge --org O --thread T`: deletes the thread's digests, the recovery
 * path from any cleaner bug. The next turn's assembly shows the raw thread (subject only
 * to the history backstop). The pass record stays, so no job rewrites them until a later
 * turn ends.
 */
export async function purgeCommand(args: string[], context: OpsContext): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { org: { type: "string" }, thread: { type: "string" }, database: { type: "string" } },
  });
  const orgId = required(values.org, "org", "purge");
  const threadId = required(values.thread, "thread", "purge");
  const deleted = await withDatabase(context, databaseUrlOf(values.database, context.io), (database) =>
    createDigestRepository(database).deleteThreadDigests(orgId, threadId),
  );
  context.io.stdout(
    `deleted ${deleted} digest${deleted === 1 ? "" : "s"} of thread ${threadId} (org ${orgId}); its next turn sees the raw thread\n`,
  );
}
