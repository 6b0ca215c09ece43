import { parseArgs } from "node:util";
import { createDigestRepository } from "@context-cleaner/db";
import { databaseUrlOf, type OpsContext, required, withDatabase } from "./ops-context";

/**
 * `context-cleaner status --org O --thread T`: the thread's pass record, how many digests
 * it has and how many chars they save.
 */
export async function statusCommand(args: string[], context: OpsContext): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      org: { type: "string" },
      thread: { type: "string" },
      database: { type: "string" },
      json: { type: "boolean" },
    },
  });
  const orgId = required(values.org, "org", "status");
  const threadId = required(values.thread, "thread", "status");
  const { pass, digests } = await withDatabase(
    context,
    databaseUrlOf(values.database, context.io),
    async (database) => {
      const repository = createDigestRepository(database);
      return {
        pass: await repository.getPass(orgId, threadId),
        digests: await repository.summarizeThreadDigests(orgId, threadId),
      };
    },
  );
  const charsSaved = digests.originalChars - digests.digestChars;
  const { io } = context;
  if (values.json) {
    io.stdout(`${JSON.stringify({ orgId, threadId, pass, digests: { ...digests, charsSaved } }, null, 2)}\n`);
    return;
  }
  const when = (date: Date | null | undefined) => date?.toISOString() ?? "—";
  const lines = [`thread ${threadId} (org ${orgId})`];
  if (pass === null) lines.push("  pass:         none recorded (no job has run for this thread)");
  else {
    lines.push(
      `  pass:         ${pass.status}${pass.reason ? ` (${pass.reason})` : ""}, recorded ${when(pass.at)}`,
      `  covered turn: ${when(pass.coveredTurnEndedAt)}`,
      `  latest turn:  ${when(pass.latestTurnEndedAt)}`,
    );
  }
  lines.push(
    `  digests:      ${digests.digests}`,
    `  chars saved:  ${charsSaved.toLocaleString("en-US")} (${digests.originalChars.toLocaleString("en-US")} → ${digests.digestChars.toLocaleString("en-US")})`,
  );
  io.stdout(`${lines.join("\n")}\n`);
}
