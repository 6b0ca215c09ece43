import { parseArgs } from "node:util";
import { createDigestRepository } from "@context-cleaner/db";
import { databaseUrlOf, type OpsContext, required, withDatabase } from "./ops-context";
import { describePolicy } from "./policy";

/**
 * `context-cleaner status --org O --thread T`: the org's mode, the thread's pass record,
 * how many digests it has and how many chars they save.
 * `context-cleaner status --org O`: the org's mode and policy, and what all its digests
 * save — under mode `shadow`, what its views would save once it is switched on.
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
  if (values.thread === undefined) return organizationStatus(orgId, values, context);
  const threadId = required(values.thread, "thread", "status");
  const { pass, digests, policy } = await withDatabase(
    context,
    databaseUrlOf(values.database, context.io),
    async (database) => {
      const repository = createDigestRepository(database);
      return {
        pass: await repository.getPass(orgId, threadId),
        digests: await repository.summarizeThreadDigests(orgId, threadId),
        policy: await repository.getOrgPolicy(orgId),
      };
    },
  );
  const charsSaved = digests.originalChars - digests.digestChars;
  const mode = policy?.mode ?? "on";
  const { io } = context;
  if (values.json) {
    io.stdout(
      `${JSON.stringify({ orgId, threadId, mode, pass, digests: { ...digests, charsSaved } }, null, 2)}\n`,
    );
    return;
  }
  const when = (date: Date | null | undefined) => date?.toISOString() ?? "—";
  const lines = [
    `thread ${threadId} (org ${orgId})`,
    `  mode:         ${mode}${policy ? "" : " (no policy row)"}`,
  ];
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

/** `status --org O`: the org's policy and what its digests save (would save, in shadow). */
async function organizationStatus(
  orgId: string,
  values: { database?: string | undefined; json?: boolean | undefined },
  context: OpsContext,
): Promise<void> {
  const { policy, digests } = await withDatabase(
    context,
    databaseUrlOf(values.database, context.io),
    async (database) => {
      const repository = createDigestRepository(database);
      return {
        policy: await repository.getOrgPolicy(orgId),
        digests: await repository.summarizeOrgDigests(orgId),
      };
    },
  );
  const mode = policy?.mode ?? "on";
  const charsSaved = digests.originalChars - digests.digestChars;
  if (values.json) {
    context.io.stdout(
      `${JSON.stringify({ orgId, mode, policy, digests: { ...digests, charsSaved }, ...(mode === "shadow" ? { shadowCharsSaved: charsSaved } : {}) }, null, 2)}\n`,
    );
    return;
  }
  const label = mode === "shadow" ? "shadow saves: " : "chars saved:  ";
  const note = mode === "shadow" ? " (not sent: the views are raw until the mode is on)" : "";
  const lines = [
    ...describePolicy(orgId, policy),
    `  digests:      ${digests.digests} in ${digests.threads} thread${digests.threads === 1 ? "" : "s"}`,
    `  ${label}${charsSaved.toLocaleString("en-US")} (${digests.originalChars.toLocaleString("en-US")} → ${digests.digestChars.toLocaleString("en-US")})${note}`,
  ];
  context.io.stdout(`${lines.join("\n")}\n`);
}
