import * as z from "zod";
import { InvalidPayloadError } from "../errors";

/** The post-turn event a runtime publishes and the worker consumes (docs/architecture.md#the-worker). */
export const digestJobPayloadSchema = z.object({
  orgId: z.string().trim().min(1, "must be a non-empty org id").max(200),
  threadId: z.string().trim().min(1, "must be a non-empty thread id").max(500),
  rawToolChars: z.number().int().nonnegative(),
  turnEndedAt: z.iso.datetime({ offset: true }),
});

export type DigestJobPayload = z.infer<typeof digestJobPayloadSchema>;

/**
 * Validates a job payload at the boundary.
 *
 * @throws {InvalidPayloadError} naming each bad field, e.g. `rawToolChars: expected number`.
 */
export function parseDigestJobPayload(value: unknown): DigestJobPayload {
  const result = digestJobPayloadSchema.safeParse(value);
  if (result.success) return result.data;
  throw new InvalidPayloadError(
    result.error.issues.map((issue) => `${issue.path.join(".") || "payload"}: ${issue.message}`),
  );
}
