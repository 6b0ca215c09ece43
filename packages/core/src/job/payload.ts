import {
  announcedTurn,
  describeTurnEventProblem,
  midTurnMark,
  type TurnEndedEvent,
  turnEventProblems,
} from "@context-cleaner/assembler/events";
import { InvalidPayloadError } from "../errors";
import { DIGEST_JOB_DEFAULTS } from "./options";

/**
 * The post-turn event a runtime publishes and the worker consumes: the assembler's
 * `TurnEndedEvent`, read with its rules (`turnEventProblems`), which follow the storage's,
 * so a payload accepted here is never refused by the repository, and the publisher sends
 * nothing this would refuse. Ids are taken as given, never trimmed. Its optional
 * `messageCount` and `lastMessageId` announce the turn: the job waits until the checkpoint
 * it reads shows it (see docs/architecture.md#the-worker). Its optional `midTurn` marks an
 * event published inside a long turn: the pass digests what the agent has moved past and
 * covers no turn (docs/architecture.md#relief-inside-a-long-turn).
 */
export type DigestJobPayload = TurnEndedEvent;

/** How the turn time is checked against a clock. */
export interface TurnClockCheck {
  /** The worker's time. */
  now: Date;
  /** How far a turn end may lie ahead of `now`. @default 300 (`DIGEST_JOB_DEFAULTS.maxTurnClockSkewSeconds`) */
  maxTurnClockSkewSeconds?: number;
}

/**
 * The problem of a turn that ends too far ahead of the worker's clock: coalescing would
 * count every later real turn as covered, so the thread would never get a pass again.
 */
export function turnAheadProblem(turnEndedAt: Date, check: TurnClockCheck): string | undefined {
  const skewSeconds = check.maxTurnClockSkewSeconds ?? DIGEST_JOB_DEFAULTS.maxTurnClockSkewSeconds;
  const aheadMs = turnEndedAt.getTime() - check.now.getTime();
  if (aheadMs <= skewSeconds * 1000) return undefined;
  return `turnEndedAt: ${Math.ceil(aheadMs / 1000)} s ahead of the worker's clock (at most ${skewSeconds} s allowed)`;
}

/**
 * Validates a job payload at the boundary; with a clock, also refuses a turn that ends more
 * than the allowed skew ahead of it.
 *
 * @throws {InvalidPayloadError} naming each bad field, e.g. `rawToolChars: expected number`
 *   (never retryable); a payload of any other shape gives `event: must be an object`.
 * @example
 * const payload = parseDigestJobPayload(JSON.parse(record.body), { now: new Date() });
 */
export function parseDigestJobPayload(value: unknown, clock?: TurnClockCheck): DigestJobPayload {
  const problems = turnEventProblems(value);
  if (problems.length > 0) throw new InvalidPayloadError(problems.map(describeTurnEventProblem));
  const { orgId, threadId, rawToolChars, turnEndedAt } = value as TurnEndedEvent;
  const ahead = clock ? turnAheadProblem(new Date(turnEndedAt), clock) : undefined;
  if (ahead) throw new InvalidPayloadError([ahead]);
  const event = value as TurnEndedEvent;
  return { orgId, threadId, rawToolChars, turnEndedAt, ...announcedTurn(event), ...midTurnMark(event) };
}
