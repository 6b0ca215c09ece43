import type { SendMessageCommand, SendMessageCommandOutput } from "@aws-sdk/client-sqs";
import { DeadlineExceededError, InvalidOptionError, InvalidTurnEventError } from "../errors";
import { killSwitchFromEnvironment } from "../kill-switch";
import { checkInteger } from "../validate";
import { withDeadline } from "./deadline";
import { turnEventMessage } from "./message-ids";
import { type TurnEndedEvent, type TurnEndedInput, toTurnEndedEvent } from "./turn-event";

/** The one call the publisher makes on an SQS client; `SQSClient` satisfies it. */
export interface SqsSendClient {
  send(
    command: SendMessageCommand,
    options?: { abortSignal?: AbortSignal },
  ): Promise<SendMessageCommandOutput>;
}

/** Where a publish failure is reported; `console` and Powertools' `Logger` satisfy it. */
export interface TurnEventLogger {
  warn(message: string, details: Record<string, unknown>): void;
}

export interface TurnEventPublisherOptions {
  /** URL of the digest queue (a FIFO queue). */
  queueUrl: string;
  /**
   * The SQS client. @default `new SQSClient({})`: credentials from the environment, the
   * region from `AWS_REGION`, else the queue URL's (`sqs.<region>.amazonaws.com`)
   */
  sqs?: SqsSendClient;
  /** Below this many raw tool-result characters a thread is not worth a job: no message is sent. @default 120_000 */
  triggerChars?: number;
  /** Deadline of the send, retries included. @default 2_000 */
  timeoutMs?: number;
  /** Where failures are logged. @default console */
  logger?: TurnEventLogger;
  /**
   * Drop every event (the kill switch).
   * @default `CONTEXT_CLEANER_DISABLED=1`, read at each publish
   */
  disabled?: boolean;
}

export const TURN_EVENT_PUBLISHER_DEFAULTS = { triggerChars: 120_000, timeoutMs: 2_000 } as const;

/** Why a publish sent nothing, on purpose. */
export type TurnEventSkipReason = "below_trigger" | "disabled";
/**
 * Why a publish failed. `not_configured`: the queue URL is not a URL, or the SQS client has
 * no region or no credentials; logged once per publisher, naming what to set.
 */
export type TurnEventFailureReason = "invalid_event" | "timeout" | "send_error" | "not_configured";

/** What a publish did; it never throws. */
export type TurnEventOutcome =
  | { readonly status: "sent"; readonly messageId: string }
  | { readonly status: "skipped"; readonly reason: TurnEventSkipReason }
  | { readonly status: "failed"; readonly reason: TurnEventFailureReason; readonly error: Error };

export interface TurnEventPublisher {
  /**
   * Enqueues a digest job for the thread whose turn just ended. Fire-and-forget: the
   * outcome says what happened, a failure is logged, and nothing is ever thrown into the
   * turn. Below the trigger it returns at once with no I/O.
   */
  publishTurnEnded(input: TurnEndedInput): Promise<TurnEventOutcome>;
}

type SqsModule = typeof import("@aws-sdk/client-sqs");
let sqsModule: Promise<SqsModule> | undefined;

/**
 * The SQS SDK, loaded at the first send: importing `./events` (for the turn lock, say)
 * never needs the package installed. A failed load is tried again at the next send.
 */
function loadSqs(): Promise<SqsModule> {
  sqsModule ??= import("@aws-sdk/client-sqs").catch((error: unknown) => {
    sqsModule = undefined;
    throw error;
  });
  return sqsModule;
}

/** The validated options of a publisher. */
interface PublisherSettings {
  queueUrl: string;
  triggerChars: number;
  timeoutMs: number;
  logger: TurnEventLogger;
}

function publisherSettings(options: TurnEventPublisherOptions): PublisherSettings {
  if (typeof options.queueUrl !== "string" || options.queueUrl.length === 0) {
    throw new InvalidOptionError("queueUrl: must be a non-empty URL", "queueUrl");
  }
  return {
    queueUrl: options.queueUrl,
    triggerChars: checkInteger(
      options.triggerChars ?? TURN_EVENT_PUBLISHER_DEFAULTS.triggerChars,
      "triggerChars",
    ),
    timeoutMs: checkInteger(options.timeoutMs ?? TURN_EVENT_PUBLISHER_DEFAULTS.timeoutMs, "timeoutMs"),
    logger: options.logger ?? console,
  };
}

/** Logs a failed publish (a broken logger fails nothing) and returns its outcome. */
function failed(
  logger: TurnEventLogger,
  reason: TurnEventFailureReason,
  error: Error,
  context: Record<string, unknown>,
): TurnEventOutcome {
  try {
    logger.warn("context-cleaner: turn event not published", { ...context, reason, error: error.message });
  } catch {
    // A broken logger must not fail the turn either.
  }
  return { status: "failed", reason, error };
}

/** The region of an AWS SQS queue URL (`https://sqs.<region>.amazonaws.com/…`). */
function regionOfQueueUrl(queueUrl: string): string | undefined {
  try {
    return /^sqs[.-]([a-z0-9-]+)\.amazonaws\.com$/.exec(new URL(queueUrl).hostname)?.[1];
  } catch {
    return undefined;
  }
}

/** What is missing for a queue URL that is not an http(s) URL, said as what to set; none when it is one. */
function queueUrlProblem(queueUrl: string): string | undefined {
  try {
    const { protocol } = new URL(queueUrl);
    if (protocol === "https:" || protocol === "http:") return undefined;
  } catch {
    // Not a URL: said below.
  }
  return `the digest queue URL is not a URL (${JSON.stringify(queueUrl.slice(0, 100))}): set DIGEST_QUEUE_URL (or pass queueUrl) to the queue URL the deploy prints (digestQueueUrl)`;
}

/** What is missing when a send failed for the client's configuration, said as what to set; none for another failure. */
function clientProblem(error: Error): string | undefined {
  if (/region is missing/i.test(error.message)) {
    return "the SQS client has no region: set AWS_REGION (or pass an SQSClient with its region as sqs)";
  }
  if (error.name === "CredentialsProviderError" || /could not load credentials/i.test(error.message)) {
    return "the SQS client has no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE, or give the process a role";
  }
  return undefined;
}

/** Sends one event as a FIFO message within the deadline; `client` is the injected SQS client, if any. */
async function sendEvent(
  event: TurnEndedEvent,
  settings: PublisherSettings,
  client: () => Promise<SqsSendClient>,
): Promise<TurnEventOutcome> {
  const { SendMessageCommand } = await loadSqs();
  const sqs = await client();
  const message = turnEventMessage(event);
  const command = new SendMessageCommand({
    QueueUrl: settings.queueUrl,
    MessageBody: message.body,
    MessageGroupId: message.groupId,
    MessageDeduplicationId: message.deduplicationId,
  });
  const output = await withDeadline("SQS SendMessage", settings.timeoutMs, (abortSignal) =>
    sqs.send(command, { abortSignal }),
  );
  return { status: "sent", messageId: output.MessageId ?? "" };
}

/**
 * The runtime side of the digest queue: one SQS FIFO message per turn that ended with
 * enough tool output, grouped by thread and deduplicated by turn. The SQS SDK is loaded at
 * the first send, not when this module is imported.
 *
 * @example
 * ```ts
 * const events = createTurnEventPublisher({ queueUrl: process.env.DIGEST_QUEUE_URL });
 * // after the turn's reply is sent:
 * void events.publishTurnEnded({ orgId, threadId, rawToolChars, turnEndedAt: new Date() });
 * ```
 * A queue URL that is not a URL (`"undefined"`, from an unset variable) for the default
 * client, or a client without a region or credentials, is named once in the log, saying what to set; each
 * publish then fails `not_configured` (a bad URL without any I/O).
 *
 * @throws {InvalidOptionError} for a missing `queueUrl`, or a `triggerChars` or `timeoutMs`
 *   that is not a positive integer.
 */
export function createTurnEventPublisher(options: TurnEventPublisherOptions): TurnEventPublisher {
  const settings = publisherSettings(options);
  let sqs = options.sqs;
  const client = async (): Promise<SqsSendClient> => {
    // An AWS queue URL names its region: the default client needs no AWS_REGION then.
    const region = regionOfQueueUrl(settings.queueUrl);
    sqs ??= new (await loadSqs()).SQSClient(
      region && !process.env.AWS_REGION && !process.env.AWS_DEFAULT_REGION ? { region } : {},
    );
    return sqs;
  };
  // The default client needs a real URL; an injected one (an in-process queue's) names its own.
  const urlProblem = options.sqs === undefined ? queueUrlProblem(settings.queueUrl) : undefined;
  // Each configuration problem is logged once per publisher; every publish still reports it.
  const named = new Set<string>();
  const notConfigured = (problem: string): TurnEventOutcome => {
    const error = new InvalidOptionError(problem, "queueUrl");
    if (named.has(problem)) return { status: "failed", reason: "not_configured", error };
    named.add(problem);
    try {
      settings.logger.warn("context-cleaner: turn events are not published", {
        reason: "not_configured",
        error: problem,
      });
    } catch {
      // A broken logger must not fail the turn either.
    }
    return { status: "failed", reason: "not_configured", error };
  };

  return {
    async publishTurnEnded(input) {
      let event: TurnEndedEvent;
      try {
        event = toTurnEndedEvent(input);
      } catch (error) {
        const invalid = error instanceof Error ? error : new InvalidTurnEventError(String(error), "event");
        return failed(settings.logger, "invalid_event", invalid, {});
      }
      if (options.disabled ?? killSwitchFromEnvironment()) return { status: "skipped", reason: "disabled" };
      if (event.rawToolChars < settings.triggerChars) return { status: "skipped", reason: "below_trigger" };
      if (urlProblem !== undefined) return notConfigured(urlProblem);
      try {
        return await sendEvent(event, settings, client);
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        const problem = clientProblem(failure);
        if (problem !== undefined) return notConfigured(problem);
        const reason = failure instanceof DeadlineExceededError ? "timeout" : "send_error";
        const context = { orgId: event.orgId, threadId: event.threadId, turnEndedAt: event.turnEndedAt };
        return failed(settings.logger, reason, failure, context);
      }
    },
  };
}
