import { parseArgs } from "node:util";
import { UsageError } from "../../errors";
import { parseDigestJobPayload } from "../../job/payload";
import type { DeadLetterQueue, ReceivedDigestMessage } from "../../queue/digest-queue";
import type { OpsContext } from "./ops-context";
import { positiveInteger } from "./ops-context";

/** How long a listed dead letter stays hidden while the listing runs, in seconds. */
const LIST_VISIBILITY_SECONDS = 60;

/** Whether a dead letter's body is a valid turn event, or why not (a poison record). */
function diagnose(body: string): string {
  try {
    parseDigestJobPayload(JSON.parse(body));
    return "valid turn event: its jobs failed (see the digest function's logs)";
  } catch (error) {
    return `poison: ${(error as Error).message}`;
  }
}

/** Receives up to `limit` dead letters (each stays hidden until released or redriven). */
async function receiveUpTo(deadLetters: DeadLetterQueue, limit: number): Promise<ReceivedDigestMessage[]> {
  const received: ReceivedDigestMessage[] = [];
  while (received.length < limit) {
    const batch = await deadLetters.receive(Math.min(10, limit - received.length), {
      visibilityTimeoutSeconds: LIST_VISIBILITY_SECONDS,
    });
    if (batch.length === 0) break;
    received.push(...batch);
  }
  return received;
}

/**
 * `context-cleaner dlq list` shows the dead letters (id, thread group, receives, sent, and
 * whether the body is a valid turn event or why it is poison), then releases them;
 * `context-cleaner dlq redrive` sends them back to the digest queue. Queue URLs from
 * `--queue-url`/`--dlq-url` or `DIGEST_QUEUE_URL`/`DIGEST_DLQ_URL`.
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
    },
  });
  const [action, ...extra] = positionals;
  if ((action !== "list" && action !== "redrive") || extra.length > 0) {
    throw new UsageError("dlq needs list or redrive: context-cleaner dlq list|redrive [--limit N]");
  }
  const { environment } = context.io;
  const dlqUrl = values["dlq-url"] ?? environment.DIGEST_DLQ_URL;
  const queueUrl = values["queue-url"] ?? environment.DIGEST_QUEUE_URL;
  if (!dlqUrl) throw new UsageError("the dead-letter queue URL is needed: --dlq-url or DIGEST_DLQ_URL");
  const limit = positiveInteger(values.limit, "limit", action === "list" ? 100 : 1_000);
  const queue = await context.openQueue({ ...(queueUrl ? { queueUrl } : {}), dlqUrl });
  const deadLetters = queue.deadLetters;
  if (deadLetters === undefined) throw new UsageError("the queue has no dead-letter queue");
  const letters = await receiveUpTo(deadLetters, limit);
  const { io } = context;

  if (action === "list") {
    const listed = letters.map((letter) => ({
      messageId: letter.messageId,
      groupId: letter.groupId,
      receiveCount: letter.receiveCount,
      sentAt: letter.sentAt.toISOString(),
      diagnosis: diagnose(letter.body),
      body: letter.body,
    }));
    // Listing must not hold them: visible again for a redrive or the next listing.
    for (const letter of letters) await deadLetters.changeVisibility(letter.receiptHandle, 0);
    if (values.json) {
      io.stdout(`${JSON.stringify(listed, null, 2)}\n`);
      return;
    }
    io.stdout(`${listed.length} dead letter${listed.length === 1 ? "" : "s"}\n`);
    for (const letter of listed) {
      io.stdout(
        `${letter.messageId}  group ${letter.groupId}  received ${letter.receiveCount}×  sent ${letter.sentAt}\n  ${letter.diagnosis}\n  ${letter.body.slice(0, 300)}\n`,
      );
    }
    return;
  }

  if (!queueUrl) throw new UsageError("the digest queue URL is needed: --queue-url or DIGEST_QUEUE_URL");
  let redriven = 0;
  for (const letter of letters) {
    await deadLetters.redrive(letter);
    redriven += 1;
  }
  io.stdout(`redrove ${redriven} dead letter${redriven === 1 ? "" : "s"} to the digest queue\n`);
}
