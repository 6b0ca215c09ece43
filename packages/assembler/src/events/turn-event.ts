import { InvalidTurnEventError } from "../errors";

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
}

/** What a runtime passes: `turnEndedAt` as a `Date` or an ISO 8601 string with an offset. */
export interface TurnEndedInput {
  readonly orgId: string;
  readonly threadId: string;
  readonly rawToolChars: number;
  readonly turnEndedAt: Date | string;
}

/** Length limits the worker also enforces on the ids it reads back. */
export const TURN_EVENT_LIMITS = { orgIdMaxChars: 200, threadIdMaxChars: 500 } as const;

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

function checkId(value: unknown, field: "orgId" | "threadId", maxChars: number): string {
  if (typeof value !== "string" || value.trim().length === 0) {
    throw new InvalidTurnEventError(`${field}: must be a non-empty string`, field);
  }
  if (value.length > maxChars) {
    throw new InvalidTurnEventError(`${field}: longer than ${maxChars} characters`, field);
  }
  return value;
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

/**
 * Validates a runtime's input at the boundary and returns the event as it is sent.
 *
 * @throws {InvalidTurnEventError} naming the first bad field.
 */
export function toTurnEndedEvent(input: TurnEndedInput): TurnEndedEvent {
  if (input === null || typeof input !== "object") {
    throw new InvalidTurnEventError("event: must be an object", "event");
  }
  const orgId = checkId(input.orgId, "orgId", TURN_EVENT_LIMITS.orgIdMaxChars);
  const threadId = checkId(input.threadId, "threadId", TURN_EVENT_LIMITS.threadIdMaxChars);
  const { rawToolChars } = input;
  if (typeof rawToolChars !== "number" || !Number.isSafeInteger(rawToolChars) || rawToolChars < 0) {
    throw new InvalidTurnEventError("rawToolChars: must be a non-negative integer", "rawToolChars");
  }
  return { orgId, threadId, rawToolChars, turnEndedAt: normalizeTurnEndedAt(input.turnEndedAt) };
}
