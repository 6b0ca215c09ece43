import { parseArgs } from "node:util";
import { UsageError } from "../../errors";
import { parseDigestJobPayload } from "../../job/payload";
import type { DeadLetterQueue, ReceivedDigestMessage } from "../../queue/digest-queue";
import { JOB_FAILED_FOR_GOOD } from "../../worker/disposition";
import type { OpsContext } from "./ops-context";
import { positiveInteger } from "./ops-context";

/** How long a received dead letter stays hidden while the command runs, in seconds. */
const HOLD_SECONDS = 60;

interface Diagnosis {
  poison: boolean;
  text: string;
}

/**
 * Whether a dead letter is a valid turn event, or why not (a poison record): the reason the
 * digest function recorded when it sent the letter there (a job that failed for good is a
 * valid event), else the body's validation.
 */
function diagnose(letter: ReceivedDigestMessage): Diagnosis {
  const reason = letter.deadLetterReason;
  if (reason?.startsWith(JOB_FAILED_FOR_GOOD)) return { poison: false, text: `valid turn event: ${reason}` };
  if (reason !== undefined) return { poison: true, text: `poison: ${reason}` };
  try {
    parseDigestJobPayload(JSON.parse(letter.body));
    return { poison: false, text: "valid turn event: its jobs failed (see the digest function's logs)" };
  } catch (error) {
    return { poison: true, text: `poison: ${(error as Error).message}` };
  }
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? "" : "s"}`;

async function release(
  deadLetters: DeadLetterQueue,
  letters: readonly ReceivedDigestMessage[],
): Promise<void> {
  for (const letter of letters) await deadLetters.changeVisibility(letter.receiptHandle, 0);
}

/**
 * `dlq list`: receives up to `limit` dead letters, holding each until the listing is done.
 * A FIFO queue hands out none of a group's later letters while earlier ones are held, so
 * what waits behind the listed ones is counted, not shown.
 */
async function listLetters(deadLetters: DeadLetterQueue, limit: number, context: OpsContext, json: boolean) {
  const letters: ReceivedDigestMessage[] = [];
  let notShown: number;
  try {
    while (letters.length < limit) {
      const batch = await deadLetters.receive(Math.min(10, limit - letters.length), {
        visibilityTimeoutSeconds: HOLD_SECONDS,
      });
      if (batch.length === 0) break;
      letters.push(...batch);
    }
    notShown = await deadLetters.countVisible();
  } finally {
    // Listing must not hold them: visible again for a redrive or the next listing.
    await release(deadLetters, letters);
  }
  const { io } = context;
  const listed = letters.map((letter) => ({
    messageId: letter.messageId,
    groupId: letter.groupId,
    receiveCount: letter.receiveCount,
    sentAt: letter.sentAt.toISOString(),
    diagnosis: diagnose(letter).text,
    body: letter.body,
  }));
  const more =
    notShown === 0
      ? ""
      : letters.length >= limit
        ? `${notShown} more not shown (--limit ${limit}; more may wait behind them in their threads' groups)\n`
        : `${notShown} more wait behind them in their threads' groups (a FIFO queue shows them once the letters ahead are redriven)\n`;
  if (json) {
    io.stdout(`${JSON.stringify(listed, null, 2)}\n`);
    if (more) io.stderr(more);
    return;
  }
  io.stdout(`${plural(listed.length, "dead letter")}\n`);
  for (const letter of listed) {
    io.stdout(
      `${letter.messageId}  group ${letter.groupId}  received ${letter.receiveCount}×  sent ${letter.sentAt}\n  ${letter.diagnosis}\n  ${letter.body.slice(0, 300)}\n`,
    );
  }
  io.stdout(more);
}

/**
 * `dlq redrive`: sends dead letters back to the digest queue until none is left or `limit`
 * were sent. Poison letters are kept back (held while the run lasts) unless `includePoison`.
 * A held letter holds the later letters of its group, so when receives dry up while letters
 * are held, they are released and the receiving goes on, for as long as it makes progress.
 */
async function redriveLetters(
  deadLetters: DeadLetterQueue,
  limit: number,
  includePoison: boolean,
  context: OpsContext,
): Promise<void> {
  const kept = new Set<string>();
  let held: ReceivedDigestMessage[] = [];
  let redriven = 0;
  let progressed = false;
  try {
    while (redriven < limit) {
      const batch = await deadLetters.receive(10, { visibilityTimeoutSeconds: HOLD_SECONDS });
      if (batch.length === 0) {
        if (held.length === 0 || !progressed) break;
        await release(deadLetters, held);
        held = [];
        progressed = false;
        continue;
      }
      for (const letter of batch) {
        if (kept.has(letter.messageId) || redriven >= limit) {
          held.push(letter);
          continue;
        }
        if (!includePoison && diagnose(letter).poison) {
          kept.add(letter.messageId);
          held.push(letter);
          continue;
        }
        await deadLetters.redrive(letter);
        redriven += 1;
        progressed = true;
      }
    }
  } finally {
    await release(deadLetters, held);
  }
  const { io } = context;
  io.stdout(`redrove ${plural(redriven, "dead letter")} to the digest queue\n`);
  if (kept.size > 0) {
    io.stdout(
      `kept back ${plural(kept.size, "poison dead letter")} (not a valid turn event): --include-poison redrives ${kept.size === 1 ? "it" : "them"} too\n`,
    );
  }
  const left = (await deadLetters.countVisible()) - kept.size;
  if (left > 0) {
    io.stdout(
      `${left} more left in the dead letters${redriven >= limit ? ` (--limit ${limit})` : ""}: run it again\n`,
    );
  }
}

/**
 * `context-cleaner dlq list` shows the dead letters (id, thread group, receives, sent, and
 * whether the body is a valid turn event or why it is poison), then releases them, and says
 * how many more wait; `context-cleaner dlq redrive` sends the valid ones back to the digest
 * queue (poison ones too with `--include-poison`). Queue URLs from `--queue-url`/`--dlq-url`
 * or `DIGEST_QUEUE_URL`/`DIGEST_DLQ_URL`.
 */
export async function dlqCommand(args: string[], context: OpsContext): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      "queue-url": { type: "string" },
      "dlq-url": { type: "string" },
      limit: { type: "string" },
      json: { type: "boolean" },
      "include-poison": { type: "boolean" },
    },
  });
  const [action, ...extra] = positionals;
  if ((action !== "list" && action !== "redrive") || extra.length > 0) {
    throw new UsageError(
      "dlq needs list or redrive: context-cleaner dlq list [--limit N] [--json] | dlq redrive [--limit N] [--include-poison]",
    );
  }
  if (action === "list" && values["include-poison"])
    throw new UsageError("--include-poison is for dlq redrive");
  if (action === "redrive" && values.json) throw new UsageError("--json is for dlq list");
  const { environment } = context.io;
  const dlqUrl = values["dlq-url"] ?? environment.DIGEST_DLQ_URL;
  const queueUrl = values["queue-url"] ?? environment.DIGEST_QUEUE_URL;
  if (!dlqUrl) throw new UsageError("the dead-letter queue URL is needed: --dlq-url or DIGEST_DLQ_URL");
  if (action === "redrive" && !queueUrl) {
    throw new UsageError("the digest queue URL is needed: --queue-url or DIGEST_QUEUE_URL");
  }
  const limit = positiveInteger(values.limit, "limit", action === "list" ? 100 : 1_000);
  const queue = await context.openQueue({ ...(queueUrl ? { queueUrl } : {}), dlqUrl });
  const deadLetters = queue.deadLetters;
  if (deadLetters === undefined) throw new UsageError("the queue has no dead-letter queue");
  if (action === "list") await listLetters(deadLetters, limit, context, values.json === true);
  else await redriveLetters(deadLetters, limit, values["include-poison"] === true, context);
}
