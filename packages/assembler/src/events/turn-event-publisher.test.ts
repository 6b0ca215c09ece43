import type { SendMessageCommand, SendMessageCommandOutput } from "@aws-sdk/client-sqs";
import { afterEach, describe, expect, it } from "vitest";
import { DeadlineExceededError, InvalidOptionError, InvalidTurnEventError } from "../errors";
import { midTurnEventDeduplicationId, turnEventDeduplicationId, turnEventGroupId } from "./message-ids";
import { createTurnEventPublisher, type SqsSendClient, type TurnEventLogger } from "./turn-event-publisher";

const QUEUE_URL = "https://sqs.eu-west-1.amazonaws.com/123456789012/digest.fifo";
const TURN = {
  orgId: "org_1",
  threadId: "thread_1",
  rawToolChars: 150_000,
  turnEndedAt: "2026-03-01T12:00:00Z",
};

/** A recording SQS client; `respond` decides what each send does. */
function fakeSqs(
  respond: (
    command: SendMessageCommand,
    signal?: AbortSignal,
  ) => Promise<SendMessageCommandOutput> = async () => ({
    MessageId: "m-1",
    $metadata: {},
  }),
) {
  const sent: SendMessageCommand[] = [];
  const signals: (AbortSignal | undefined)[] = [];
  const client: SqsSendClient = {
    send(command, options) {
      sent.push(command);
      signals.push(options?.abortSignal);
      return respond(command, options?.abortSignal);
    },
  };
  return { client, sent, signals };
}

function recordingLogger() {
  const warnings: { message: string; details: Record<string, unknown> }[] = [];
  const logger: TurnEventLogger = { warn: (message, details) => warnings.push({ message, details }) };
  return { logger, warnings };
}

afterEach(() => {
  delete process.env.CONTEXT_CLEANER_DISABLED;
});

describe("createTurnEventPublisher", () => {
  it("sends one FIFO message per turn: thread group, turn dedupe id, the event as the body", async () => {
    const sqs = fakeSqs();
    const publisher = createTurnEventPublisher({ queueUrl: QUEUE_URL, sqs: sqs.client });

    const outcome = await publisher.publishTurnEnded({ ...TURN, turnEndedAt: "2026-03-01T13:00:00+01:00" });

    expect(outcome).toEqual({ status: "sent", messageId: "m-1" });
    expect(sqs.sent).toHaveLength(1);
    expect(sqs.sent[0]?.input).toEqual({
      QueueUrl: QUEUE_URL,
      MessageGroupId: turnEventGroupId("org_1", "thread_1"),
      MessageDeduplicationId: turnEventDeduplicationId("org_1", "thread_1", "2026-03-01T12:00:00Z"),
      MessageBody: JSON.stringify({ ...TURN, turnEndedAt: "2026-03-01T12:00:00.000Z" }),
    });
    expect(sqs.signals[0]).toBeInstanceOf(AbortSignal);
  });

  it("sends a mid-turn event marked as such, in the thread's group, with a dedupe id of its own per announced count", async () => {
    const sqs = fakeSqs();
    const publisher = createTurnEventPublisher({ queueUrl: QUEUE_URL, sqs: sqs.client });
    const midTurn = { ...TURN, messageCount: 12, lastMessageId: "tool-5", midTurn: true };

    expect((await publisher.publishTurnEnded(midTurn)).status).toBe("sent");
    // A retry of the same event, the turn's next mid-turn event at the same instant, its end.
    await publisher.publishTurnEnded(midTurn);
    await publisher.publishTurnEnded({ ...midTurn, messageCount: 20, lastMessageId: "tool-9" });
    await publisher.publishTurnEnded({ ...TURN, messageCount: 24, lastMessageId: "ai-12" });

    const [first, retry, next, ended] = sqs.sent.map((command) => command.input);
    expect(first).toEqual({
      QueueUrl: QUEUE_URL,
      MessageGroupId: turnEventGroupId("org_1", "thread_1"),
      MessageDeduplicationId: midTurnEventDeduplicationId("org_1", "thread_1", "2026-03-01T12:00:00Z", 12),
      MessageBody: JSON.stringify({ ...midTurn, turnEndedAt: "2026-03-01T12:00:00.000Z" }),
    });
    expect(retry?.MessageDeduplicationId).toBe(first?.MessageDeduplicationId);
    expect(next?.MessageDeduplicationId).not.toBe(first?.MessageDeduplicationId);
    expect(next?.MessageGroupId).toBe(first?.MessageGroupId);
    expect(ended?.MessageDeduplicationId).toBe(
      turnEventDeduplicationId("org_1", "thread_1", "2026-03-01T12:00:00Z"),
    );
    expect(new Set(sqs.sent.map((command) => command.input.MessageDeduplicationId)).size).toBe(3);
    expect(JSON.parse(ended?.MessageBody ?? "{}")).not.toHaveProperty("midTurn");
  });

  it("drops mid-turn events under the kill switch and below the trigger, as turn-ended ones", async () => {
    const sqs = fakeSqs();
    const midTurn = { ...TURN, messageCount: 12, midTurn: true };
    const disabled = createTurnEventPublisher({ queueUrl: QUEUE_URL, sqs: sqs.client, disabled: true });
    expect(await disabled.publishTurnEnded(midTurn)).toEqual({ status: "skipped", reason: "disabled" });
    const publisher = createTurnEventPublisher({
      queueUrl: QUEUE_URL,
      sqs: sqs.client,
      triggerChars: 200_000,
    });
    expect(await publisher.publishTurnEnded(midTurn)).toEqual({ status: "skipped", reason: "below_trigger" });
    expect(sqs.sent).toHaveLength(0);
  });

  it("skips a thread below the trigger with no I/O, and sends one at the trigger", async () => {
    const sqs = fakeSqs();
    const publisher = createTurnEventPublisher({ queueUrl: QUEUE_URL, sqs: sqs.client, triggerChars: 1_000 });

    expect(await publisher.publishTurnEnded({ ...TURN, rawToolChars: 999 })).toEqual({
      status: "skipped",
      reason: "below_trigger",
    });
    expect(sqs.sent).toHaveLength(0);
    expect((await publisher.publishTurnEnded({ ...TURN, rawToolChars: 1_000 })).status).toBe("sent");
  });

  it("uses the default trigger of 120,000 characters", async () => {
    const sqs = fakeSqs();
    const publisher = createTurnEventPublisher({ queueUrl: QUEUE_URL, sqs: sqs.client });
    expect((await publisher.publishTurnEnded({ ...TURN, rawToolChars: 119_999 })).status).toBe("skipped");
    expect((await publisher.publishTurnEnded({ ...TURN, rawToolChars: 120_000 })).status).toBe("sent");
  });

  it("drops every event under the kill switch, from the option or the environment", async () => {
    const sqs = fakeSqs();
    const disabled = createTurnEventPublisher({ queueUrl: QUEUE_URL, sqs: sqs.client, disabled: true });
    expect(await disabled.publishTurnEnded(TURN)).toEqual({ status: "skipped", reason: "disabled" });

    const publisher = createTurnEventPublisher({ queueUrl: QUEUE_URL, sqs: sqs.client });
    process.env.CONTEXT_CLEANER_DISABLED = "1";
    expect(await publisher.publishTurnEnded(TURN)).toEqual({ status: "skipped", reason: "disabled" });
    delete process.env.CONTEXT_CLEANER_DISABLED;
    expect((await publisher.publishTurnEnded(TURN)).status).toBe("sent");
    expect(sqs.sent).toHaveLength(1);
  });

  it("returns a failure naming the bad field, logs it, and sends nothing", async () => {
    const sqs = fakeSqs();
    const { logger, warnings } = recordingLogger();
    const publisher = createTurnEventPublisher({ queueUrl: QUEUE_URL, sqs: sqs.client, logger });

    const outcome = await publisher.publishTurnEnded({ ...TURN, threadId: "" });

    expect(outcome.status).toBe("failed");
    if (outcome.status !== "failed") throw new Error("unreachable");
    expect(outcome.reason).toBe("invalid_event");
    expect(outcome.error).toBeInstanceOf(InvalidTurnEventError);
    expect((outcome.error as InvalidTurnEventError).field).toBe("threadId");
    expect(sqs.sent).toHaveLength(0);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.details).toMatchObject({
      reason: "invalid_event",
      error: expect.stringContaining("threadId"),
    });
  });

  it.each([
    ["orgId", "surrounding whitespace", { orgId: " org_1" }],
    ["orgId", "a tab", { orgId: "org\t1" }],
    ["orgId", "over 200 UTF-8 bytes in 101 chars", { orgId: "é".repeat(101) }],
    ["threadId", "over 500 UTF-8 bytes in 251 chars", { threadId: "é".repeat(251) }],
    ["threadId", "a lone surrogate", { threadId: "thread\ud800" }],
    ["rawToolChars", "a count over 2^31 − 1", { rawToolChars: 2 ** 31 }],
  ])(
    "refuses, as failed/invalid_event naming %s, an event the worker would take for poison: %s",
    async (field, _label, change) => {
      const sqs = fakeSqs();
      const { logger } = recordingLogger();
      const publisher = createTurnEventPublisher({ queueUrl: QUEUE_URL, sqs: sqs.client, logger });

      const outcome = await publisher.publishTurnEnded({ ...TURN, ...change });

      expect(outcome).toMatchObject({ status: "failed", reason: "invalid_event" });
      if (outcome.status !== "failed") throw new Error("unreachable");
      expect(outcome.error).toBeInstanceOf(InvalidTurnEventError);
      expect((outcome.error as InvalidTurnEventError).field).toBe(field);
      expect(outcome.error.message).toMatch(new RegExp(`^${field}: `));
      expect(sqs.sent).toHaveLength(0);
    },
  );

  it("never throws into the turn when SQS fails: returns and logs the failure", async () => {
    const failure = Object.assign(new Error("Access to the resource is denied."), { name: "AccessDenied" });
    const sqs = fakeSqs(async () => {
      throw failure;
    });
    const { logger, warnings } = recordingLogger();
    const publisher = createTurnEventPublisher({ queueUrl: QUEUE_URL, sqs: sqs.client, logger });

    const outcome = await publisher.publishTurnEnded(TURN);

    expect(outcome).toEqual({ status: "failed", reason: "send_error", error: failure });
    expect(warnings[0]?.details).toMatchObject({
      orgId: "org_1",
      threadId: "thread_1",
      reason: "send_error",
    });
  });

  it("gives up at the deadline even when the client ignores the abort signal", async () => {
    const sqs = fakeSqs(() => new Promise(() => {}));
    const { logger, warnings } = recordingLogger();
    const publisher = createTurnEventPublisher({
      queueUrl: QUEUE_URL,
      sqs: sqs.client,
      timeoutMs: 5,
      logger,
    });

    const outcome = await publisher.publishTurnEnded(TURN);

    expect(outcome.status).toBe("failed");
    if (outcome.status !== "failed") throw new Error("unreachable");
    expect(outcome.reason).toBe("timeout");
    expect(outcome.error).toBeInstanceOf(DeadlineExceededError);
    expect(sqs.signals[0]?.aborted).toBe(true);
    expect(warnings[0]?.details.reason).toBe("timeout");
  });

  it("still returns the failure when the logger itself throws", async () => {
    const sqs = fakeSqs(async () => {
      throw new Error("down");
    });
    const logger: TurnEventLogger = {
      warn: () => {
        throw new Error("logger broken");
      },
    };
    const publisher = createTurnEventPublisher({ queueUrl: QUEUE_URL, sqs: sqs.client, logger });
    expect((await publisher.publishTurnEnded(TURN)).status).toBe("failed");
  });

  it("rejects options out of range when it is created, naming the option", () => {
    expect(() => createTurnEventPublisher({ queueUrl: "" })).toThrow(InvalidOptionError);
    expect(() => createTurnEventPublisher({ queueUrl: QUEUE_URL, triggerChars: 0 })).toThrow(/triggerChars/);
    expect(() => createTurnEventPublisher({ queueUrl: QUEUE_URL, timeoutMs: 1.5 })).toThrow(/timeoutMs/);
  });

  it("names a queue URL that is not one once, says what to set, and sends nothing", async () => {
    const { logger, warnings } = recordingLogger();
    // What `String(process.env.DIGEST_QUEUE_URL)` gives when the variable is unset, for the default client.
    const publisher = createTurnEventPublisher({ queueUrl: "undefined", logger });
    const first = await publisher.publishTurnEnded(TURN);
    const second = await publisher.publishTurnEnded(TURN);
    expect(first).toMatchObject({ status: "failed", reason: "not_configured" });
    expect(second).toMatchObject({ status: "failed", reason: "not_configured" });
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toBe("context-cleaner: turn events are not published");
    expect(warnings[0]?.details.error).toMatch(/queue URL .*"undefined".*set DIGEST_QUEUE_URL/);
  });

  it.each([
    [
      "a missing region",
      Object.assign(new Error("Region is missing"), { name: "Error" }),
      /region.*AWS_REGION/,
    ],
    [
      "missing credentials",
      Object.assign(new Error("Could not load credentials from any providers"), {
        name: "CredentialsProviderError",
      }),
      /credentials.*AWS_ACCESS_KEY_ID.*AWS_PROFILE/,
    ],
  ])("names %s once, says what to set, and tries again at each turn", async (_name, error, said) => {
    const sqs = fakeSqs(async () => {
      throw error;
    });
    const { logger, warnings } = recordingLogger();
    const publisher = createTurnEventPublisher({ queueUrl: QUEUE_URL, sqs: sqs.client, logger });
    const outcomes = [await publisher.publishTurnEnded(TURN), await publisher.publishTurnEnded(TURN)];
    expect(outcomes.map((outcome) => outcome.status === "failed" && outcome.reason)).toEqual([
      "not_configured",
      "not_configured",
    ]);
    expect(sqs.sent).toHaveLength(2);
    expect(warnings).toHaveLength(1);
    expect(String(warnings[0]?.details.error)).toMatch(said);
  });
});
