import { renderOriginalHandle, withOriginalHandle } from "../contract/stubs";
import type { DigestEntry, DigestMap } from "../types";

// Per row: the row with the handle, for the digest text and tool name it was made from
// (rows are loaded once per turn; the text may be replaced on the same object).
const handledByEntry = new WeakMap<
  DigestEntry,
  { digest: string; toolCallId: string; toolName: string; entry: DigestEntry }
>();

function handledEntry(entry: DigestEntry, toolCallId: string, toolName: string): DigestEntry {
  const cached = handledByEntry.get(entry);
  if (
    cached !== undefined &&
    cached.digest === entry.digest &&
    cached.toolCallId === toolCallId &&
    cached.toolName === toolName
  ) {
    return cached.entry;
  }
  // A row that is not well formed is left for the assembly's own checks to name.
  if (typeof entry?.digest !== "string") return entry;
  const digest = withOriginalHandle(entry.digest, renderOriginalHandle(toolCallId, toolName));
  const handled: DigestEntry =
    digest === entry.digest ? entry : { ...entry, digest, digestChars: digest.length };
  handledByEntry.set(entry, { digest: entry.digest, toolCallId, toolName, entry: handled });
  return handled;
}

/**
 * The thread's digest rows as the view shows them with the `read_original` tool (named
 * `toolName`) enabled: each digest and superseded-search stub also names the call that
 * returns the raw result it stands for. Without the tool, the rows as they are.
 */
export function digestsWithHandles(
  digests: DigestMap | null | undefined,
  toolName: string | undefined,
): DigestMap | null | undefined {
  if (toolName === undefined || !(digests instanceof Map) || digests.size === 0) return digests;
  const handled = new Map<string, DigestEntry>();
  for (const [toolCallId, entry] of digests)
    handled.set(toolCallId, handledEntry(entry, toolCallId, toolName));
  return handled;
}
