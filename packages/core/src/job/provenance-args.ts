import type { DigestCandidate } from "../classify/classify-thread";

/**
 * The args that re-read a candidate's original: the policy's provenance args when the tool
 * has them, else every arg of the call.
 */
export function provenanceArgs(candidate: DigestCandidate): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const names =
    candidate.rule.provenanceArgs.length > 0
      ? candidate.rule.provenanceArgs
      : Object.keys(candidate.call.args);
  for (const name of names) if (name in candidate.call.args) args[name] = candidate.call.args[name];
  return args;
}
