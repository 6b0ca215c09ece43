import {
  BLIND_CAPS,
  CLEAR_TOOL_RESULTS,
  type Contestant,
  INLINE_ONLY,
  RAW,
  WITH_DIGESTS,
  WITH_DIGESTS_AT_TURN_END,
  WITH_DIGESTS_DROP_BLOCK,
} from "./contestants";
import { createPruneMessagesContestant, createTrimMessagesContestant } from "./peer-contestants";

/**
 * Every contestant of the comparison, in table order: raw, the runtime's blind caps with
 * drop-oldest, the library peers, this project inline only and with digests (the worker
 * reading the checkpoint once the user's next message is in it, then as the turn ends, then
 * with its requests setting Anthropic's drop_block).
 * Fresh instances: the peers cache format conversions per thread.
 */
export function createLineup(): Contestant[] {
  return [
    RAW,
    BLIND_CAPS,
    createTrimMessagesContestant(),
    createPruneMessagesContestant(),
    CLEAR_TOOL_RESULTS,
    INLINE_ONLY,
    WITH_DIGESTS,
    WITH_DIGESTS_AT_TURN_END,
    WITH_DIGESTS_DROP_BLOCK,
  ];
}
