import { countProblem, type IdField, idProblem } from "@context-cleaner/assembler/internal";
import * as z from "zod";
import { InvalidPayloadError } from "../errors";
import { DIGEST_JOB_DEFAULTS } from "./options";

/** Adds the shared storage rule's problem, if any, as the field's issue. */
function storedRule<T>(problemOf: (value: T) => string | undefined) {
  return (value: T, context: z.RefinementCtx) => {
    const problem = problemOf(value);
    if (problem) context.addIssue({ code: "custom", message: problem });
  };
}

const idSchema = (field: IdField) => z.string().superRefine(storedRule((value) => idProblem(value, field)));

/**
 * The post-turn event a runtime publishes and the worker consumes (docs/architecture.md#the-worker).
 * Ids and counts follow the storage's rules (`idProblem`, `countProblem` of the assembler's
 * internals), so a payload accepted here is never refused by the repository: ids are taken
 * as given, never trimmed.
 */
export const digestJobPayloadSchema = z.object({
  orgId: idSchema("orgId"),
  threadId: idSchema("threadId"),
  rawToolChars: z.number().superRefine(storedRule(countProblem)),
  turnEndedAt: z.iso.datetime({ offset: true }),
});

export type DigestJobPayload = z.infer<typeof digestJobPayloadSchema>;

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
 *   (never retryable).
 * @example
 * const payload = parseDigestJobPayload(JSON.parse(record.body), { now: new Date() });
 */
export function parseDigestJobPayload(value: unknown, clock?: TurnClockCheck): DigestJobPayload {
  const result = digestJobPayloadSchema.safeParse(value);
  if (!result.success) {
    throw new InvalidPayloadError(
      result.error.issues.map((issue) => `${issue.path.join(".") || "payload"}: ${issue.message}`),
    );
  }
  const ahead = clock ? turnAheadProblem(new Date(result.data.turnEndedAt), clock) : undefined;
  if (ahead) throw new InvalidPayloadError([ahead]);
  return result.data;
}
