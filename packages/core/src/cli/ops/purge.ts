import { parseArgs } from "node:util";
import { createDigestRepository, type OrgPurgeResult, type PurgeResult } from "@context-cleaner/db";
import { UsageError } from "../../errors";
import { databaseUrlOf, type OpsContext, required, withDatabase } from "./ops-context";

const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * `context-cleaner purge --org O (--thread T | --sha256 H | --all [--delete-policy])`: the recovery path from
 * any cleaner bug. Deletes the digests of one thread, of one content hash in every thread of
 * the org, or of the whole org, and marks each affected thread's pass `purged`, every turn
 * up to the database's now (not this machine's) covered: the nightly sweep leaves it alone
 * and a queued event of an earlier turn coalesces, so nothing rewrites them until a later
 * turn ends. A pass in flight loses its lease and writes nothing. The next turn's assembly
 * shows the raw thread (subject only to the history backstop).
 *
 * `--all` keeps the org's policy row (an org turned `off` for the purge stays off);
 * `--all --delete-policy` deletes it too, in the same transaction.
 *
 * Content-hash reuse crosses threads: a thread's digest may have been copied into, or from,
 * other threads of the org, so purging one thread leaves those copies (and the next pass of
 * any thread with the same content could copy them back). Purge by `--sha256` (or `--all`)
 * to remove a bad digest everywhere.
 */
export async function purgeCommand(args: string[], context: OpsContext): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      org: { type: "string" },
      thread: { type: "string" },
      sha256: { type: "string" },
      all: { type: "boolean" },
      "delete-policy": { type: "boolean" },
      database: { type: "string" },
    },
  });
  const orgId = required(values.org, "org", "purge");
  const selectors = [values.thread !== undefined, values.sha256 !== undefined, values.all === true];
  if (selectors.filter(Boolean).length > 1) {
    throw new UsageError("purge takes one of --thread, --sha256 and --all");
  }
  const deletePolicy = values["delete-policy"] === true;
  if (deletePolicy && values.all !== true) throw new UsageError("--delete-policy goes with --all");
  if (values.sha256 !== undefined && !SHA256_HEX.test(values.sha256)) {
    throw new UsageError(`--sha256 must be 64 lowercase hex chars, got ${JSON.stringify(values.sha256)}`);
  }
  const threadId =
    values.sha256 === undefined && !values.all ? required(values.thread, "thread", "purge") : undefined;
  const { sha256 } = values;
  const result = await withDatabase(context, databaseUrlOf(values.database, context.io), (database) => {
    const repository = createDigestRepository(database);
    if (threadId !== undefined) return repository.purgeThread(orgId, threadId);
    if (sha256 !== undefined) return repository.purgeContent(orgId, sha256);
    return repository.purgeOrganization(orgId, { deletePolicy });
  });
  const digests = `${result.digests} digest${result.digests === 1 ? "" : "s"}`;
  const threads = `${result.threads} thread${result.threads === 1 ? "" : "s"}`;
  let line: string;
  if (threadId !== undefined) {
    line = `deleted ${digests} of thread ${threadId} (org ${orgId}); its next turn sees the raw thread`;
  } else if (sha256 !== undefined) {
    line = `deleted ${digests} of content ${sha256} in ${threads} (org ${orgId}); their passes are marked purged`;
  } else {
    line = `deleted ${digests} of org ${orgId}; the passes of its ${threads} are marked purged; ${policyFate(orgId, result)}`;
  }
  context.io.stdout(`${line}\n`);
}

/** What an org's purge did with its policy row. */
function policyFate(orgId: string, result: PurgeResult | OrgPurgeResult): string {
  const policy = "policy" in result ? result.policy : "none";
  if (policy === "deleted") return "its policy is deleted: the deployment's defaults apply (mode on)";
  if (policy === "kept")
    return `its policy stays (policy get --org ${orgId}; policy reset or purge --all --delete-policy deletes it)`;
  return "it had no policy";
}
