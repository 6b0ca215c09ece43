import {
  countProblem,
  idProblem,
  STORED_VALUE_LIMITS,
  textProblem,
  utf8Bytes,
} from "../contract/stored-values";
import { InvalidTurnEventError, type TurnEventField } from "../errors";

/**
 * The post-turn event a runtime publishes and the digest worker consumes: the queue
 * message body, as JSON.
 */
export interface TurnEndedEvent {
  readonly orgId: string;
  readonly threadId: string;
  /** Characters of tool results in the thread as the turn ended: the worker's trigger. */
  readonly rawToolChars: number;
  /** When the turn ended, as an ISO 8601 UTC instant. */
  readonly turnEndedAt: string;
  /**
   * The announced turn: how many messages the thread held as the runtime published. The
   * worker waits until the checkpoint it reads holds at least as many (used when the event
   * has no `lastMessageId`). Optional: an event without it is read at once, as before.
   */
  readonly messageCount?: number;
  /**
   * The announced turn: the id of the thread's latest message as the runtime published. The
   * worker waits until the checkpoint it reads holds a message with this id. Optional.
   */
  readonly lastMessageId?: string;
  /**
   * A mid-turn event: published inside a long turn, once its new tool output passed the
   * runtime's threshold (docs/architecture.md#relief-inside-a-long-turn). The worker then
   * digests only the results the agent has moved past, and its pass covers no turn, so the
   * turn-ended event still covers the whole turn. `turnEndedAt` is the instant it was
   * published. Optional: absent (or false), the turn ended, as before.
   */
  readonly midTurn?: boolean;
}

/**
 * The event as a framework integration knows it when a turn ends: everything but the org,
 * which the runtime adds from the turn's context (a LangGraph `configurable`, a request).
 */
export type ThreadTurnEnded = Omit<TurnEndedEvent, "orgId">;

/** What a runtime passes: `turnEndedAt` as a `Date` or an ISO 8601 string with an offset. */
export interface TurnEndedInput {
  readonly orgId: string;
  readonly threadId: string;
  readonly rawToolChars: number;
  readonly turnEndedAt: Date | string;
  /** See {@link TurnEndedEvent.messageCount}. */
  readonly messageCount?: number;
  /** See {@link TurnEndedEvent.lastMessageId}. */
  readonly lastMessageId?: string;
  /** See {@link TurnEndedEvent.midTurn}. */
  readonly midTurn?: boolean;
}

/**
 * Limits of the event's fields, the storage's own: the publisher refuses what the worker
 * would refuse as poison.
 */
export const TURN_EVENT_LIMITS = {
  /** Longest org id, in UTF-8 bytes. */
  orgIdMaxBytes: STORED_VALUE_LIMITS.orgIdBytes,
  /** Longest thread id, in UTF-8 bytes. */
  threadIdMaxBytes: STORED_VALUE_LIMITS.threadIdBytes,
  /** The largest `rawToolChars`: 2^31 − 1, what the pass record's integer column holds. */
  maxRawToolChars: STORED_VALUE_LIMITS.maxCount,
  /** The largest `messageCount`: 2^31 − 1. */
  maxMessageCount: STORED_VALUE_LIMITS.maxCount,
  /** Longest `lastMessageId`, in UTF-8 bytes. */
  lastMessageIdMaxBytes: 500,
} as const;

export type { TurnEventField };

/** One rule of the event a value breaks. */
export interface TurnEventProblem {
  readonly field: TurnEventField;
  readonly problem: string;
}

// An ISO 8601 date-time with seconds and an explicit offset (`Z` or `±hh:mm`), as the worker accepts.
const ISO_INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/;

/** Whether the fields name a real calendar day and time (`Date` would roll 02-30 into March). */
function isRealDateTime(text: string): boolean {
  const match = ISO_INSTANT.exec(text);
  if (match === null) return false;
  const field = (index: number) => Number(match[index] ?? 0);
  const [year, month, day] = [field(1), field(2), field(3)];
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
  return (
    month >= 1 &&
    month <= 12 &&
    day >= 1 &&
    day <= daysInMonth &&
    field(4) <= 23 &&
    field(5) <= 59 &&
    field(6) <= 59 &&
    field(7) <= 23 &&
    field(8) <= 59
  );
}

/**
 * The instant a turn ended, as `Date#toISOString()` gives it: the same instant written
 * with another offset gives the same string, hence the same deduplication id.
 *
 * @throws {InvalidTurnEventError} for an invalid date or a string without an explicit offset.
 */
export function normalizeTurnEndedAt(value: Date | string): string {
  if (typeof value === "string" && !isRealDateTime(value)) {
    throw new InvalidTurnEventError(
      "turnEndedAt: must be an ISO 8601 date-time with an offset, e.g. 2026-03-01T12:00:00Z",
      "turnEndedAt",
    );
  }
  const date = value instanceof Date ? value : typeof value === "string" ? new Date(value) : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    throw new InvalidTurnEventError("turnEndedAt: must be a valid Date or ISO 8601 string", "turnEndedAt");
  }
  return date.toISOString();
}

const INSTANT_PROBLEM = "must be an ISO 8601 date-time with an offset, e.g. 2026-03-01T12:00:00Z";

/** Why `value` is no turn end of a runtime's input (a `Date` is allowed there, not in a message). */
function instantProblem(value: unknown, allowDate: boolean): string | undefined {
  if (value instanceof Date && allowDate) {
    // A year past 9999 is written with six digits, which no worker reads as an instant.
    const valid = !Number.isNaN(value.getTime()) && isRealDateTime(value.toISOString());
    return valid ? undefined : "must be a valid Date between the years 0 and 9999";
  }
  return typeof value === "string" && isRealDateTime(value) ? undefined : INSTANT_PROBLEM;
}

/**
 * Why `value` is no message id the event can announce: a non-empty string of at most 500
 * UTF-8 bytes, well-formed (no U+0000, no lone surrogate), compared exactly as given.
 */
export function messageIdProblem(value: unknown): string | undefined {
  if (typeof value !== "string" || value === "") return "must be a non-empty string";
  const text = textProblem(value);
  if (text) return text;
  const bytes = utf8Bytes(value);
  const limit = TURN_EVENT_LIMITS.lastMessageIdMaxBytes;
  return bytes > limit ? `must be at most ${limit} bytes in UTF-8, got ${bytes}` : undefined;
}

/** Every rule `value` breaks, in field order; `allowDate` for a runtime's input. */
function problemsOf(value: unknown, allowDate: boolean): TurnEventProblem[] {
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    return [{ field: "event", problem: "must be an object" }];
  }
  const event = value as Record<string, unknown>;
  const problems: TurnEventProblem[] = [];
  const add = (field: TurnEventField, problem: string | undefined) => {
    if (problem !== undefined) problems.push({ field, problem });
  };
  add("orgId", idProblem(event.orgId, "orgId"));
  add("threadId", idProblem(event.threadId, "threadId"));
  add("rawToolChars", countProblem(event.rawToolChars));
  add("turnEndedAt", instantProblem(event.turnEndedAt, allowDate));
  // The announced turn is optional: an event without it (an older runtime, the sweep) is valid.
  if (event.messageCount !== undefined) add("messageCount", countProblem(event.messageCount));
  if (event.lastMessageId !== undefined) add("lastMessageId", messageIdProblem(event.lastMessageId));
  // Optional too: an event without it (an older runtime) is a turn-ended event.
  if (event.midTurn !== undefined && typeof event.midTurn !== "boolean") add("midTurn", "must be a boolean");
  return problems;
}

/**
 * Every rule of the turn-ended event that a message body, as decoded from JSON, breaks: the
 * one set of rules the publisher checks before it sends and the worker checks as it reads.
 * Ids are taken exactly as given (never trimmed): a non-empty string of at most 200 (org) or
 * 500 (thread) UTF-8 bytes, with no surrounding whitespace, control characters or lone
 * surrogates; `rawToolChars` an integer from 0 to 2^31 − 1; `turnEndedAt` an ISO 8601
 * date-time with seconds and an explicit offset, naming a real day and time; when present,
 * `messageCount` an integer from 0 to 2^31 − 1, `lastMessageId` a non-empty string of at
 * most 500 UTF-8 bytes and `midTurn` a boolean. Other fields are ignored.
 *
 * @returns the problems, empty when `value` is a valid event.
 */
export function turnEventProblems(value: unknown): TurnEventProblem[] {
  return problemsOf(value, false);
}

/** `field: problem`, as errors name it. */
export function describeTurnEventProblem({ field, problem }: TurnEventProblem): string {
  return `${field}: ${problem}`;
}

/**
 * Validates a runtime's input at the boundary and returns the event as it is sent (its
 * rules are {@link turnEventProblems}'; `turnEndedAt` may also be a `Date`).
 *
 * @throws {InvalidTurnEventError} naming the first bad field.
 */
export function toTurnEndedEvent(input: TurnEndedInput): TurnEndedEvent {
  const [first] = problemsOf(input, true);
  if (first !== undefined) throw new InvalidTurnEventError(describeTurnEventProblem(first), first.field);
  const { orgId, threadId, rawToolChars, turnEndedAt } = input;
  return {
    orgId,
    threadId,
    rawToolChars,
    turnEndedAt: normalizeTurnEndedAt(turnEndedAt),
    ...announcedTurn(input),
    ...midTurnMark(input),
  };
}

/** `{ midTurn: true }` for a mid-turn event, else nothing: a turn-ended event carries no mark, as before. */
export function midTurnMark(event: Pick<TurnEndedEvent, "midTurn">): Pick<TurnEndedEvent, "midTurn"> {
  return event.midTurn === true ? { midTurn: true } : {};
}

/** The announced turn of an event (its `messageCount` and `lastMessageId`, when present). */
export function announcedTurn(
  event: Pick<TurnEndedEvent, "messageCount" | "lastMessageId">,
): Pick<TurnEndedEvent, "messageCount" | "lastMessageId"> {
  return {
    ...(event.messageCount === undefined ? {} : { messageCount: event.messageCount }),
    ...(event.lastMessageId === undefined ? {} : { lastMessageId: event.lastMessageId }),
  };
}

/**
 * The announced turn of a thread as a runtime sees it when it publishes: its message count
 * and the id of its latest message (left out when the message has none, or one the event
 * cannot carry). Spread it into the event: `{ ...event, ...turnAnnouncement(messages) }`.
 */
export function turnAnnouncement(
  messages: readonly { readonly id?: unknown }[],
): Pick<TurnEndedEvent, "messageCount" | "lastMessageId"> {
  const lastId = messages.at(-1)?.id;
  return {
    messageCount: messages.length,
    ...(messageIdProblem(lastId) === undefined ? { lastMessageId: lastId as string } : {}),
  };
}
