import type { ToolCall } from "@context-cleaner/assembler";
import { renderToolCall } from "@context-cleaner/assembler/internal";

/** First line of every superseded-search stub. */
export const SUPERSEDED_SEARCH_HEADER =
  "[Superseded search results — condensed by context-cleaner; every hit id kept verbatim.]";

/** What to render for one superseded search result. */
export interface SupersededSearchInput {
  /** The earlier search call. */
  call: ToolCall;
  /** The exact text of its result. */
  content: string;
  /** The policy's `hitIdPattern`: its first capture group (or the whole match) is a hit id. */
  hitIdPattern: RegExp;
  /** The tool call id of the later search of the same tool, which stays in view. */
  laterToolCallId: string;
}

/** The hit ids of a search result, verbatim, unique, in order of first occurrence. */
export function extractHitIds(content: string, hitIdPattern: RegExp): string[] {
  const flags = hitIdPattern.flags.includes("g") ? hitIdPattern.flags : `${hitIdPattern.flags}g`;
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const match of content.matchAll(new RegExp(hitIdPattern.source, flags))) {
    const id = match[1] ?? match[0];
    if (id === "" || seen.has(id)) continue;
    seen.add(id);
    ids.push(id);
  }
  return ids;
}

/**
 * The superseded-search stub: an earlier search replaced by a later one of the same tool.
 * Keeps every hit id verbatim and says that re-running the search returns current data,
 * pointing at the later search. Deterministic: same input, same bytes.
 *
 * @example
 * renderSupersededSearchStub({ call, content, hitIdPattern: rule.hitIdPattern, laterToolCallId: "call_9" });
 */
export function renderSupersededSearchStub(input: SupersededSearchInput): { text: string; hitIds: string[] } {
  const hitIds = extractHitIds(input.content, input.hitIdPattern);
  const text = [
    SUPERSEDED_SEARCH_HEADER,
    `tool: ${renderToolCall(input.call)}`,
    `hit ids verbatim: ${hitIds.length > 0 ? hitIds.join("; ") : "(none found)"}`,
    `superseded by: the later search in tool call ${input.laterToolCallId}; re-running the search returns current data.`,
  ].join("\n");
  return { text, hitIds };
}
