import { messageChars } from "../contract/message-chars";
import type { Message, ToolMessage } from "../types";
import type { BackstopResult, BackstopView } from "./backstop/backstop-view";
import type { LedgerEntry, TurnLedger } from "./cache-policy";
import type { CleanedView } from "./clean-view";

/**
 * The ledger of one assembly (see {@link TurnLedger}): the results the final view shows
 * condensed, by cleaning or by the backstop, and where this view stops matching the
 * previous one.
 */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one pass over the condensed positions that fills the entries and the first change together
export function buildLedger(
  view: BackstopView,
  cleaned: CleanedView,
  compacted: BackstopResult,
  shown: ReadonlySet<string> | undefined,
): Omit<TurnLedger, "sent" | "thinking"> {
  const { thread } = view;
  const dropped = compacted.dropped;
  const condensed = compacted.condensed;
  const entries: LedgerEntry[] = [];
  let firstChange = thread.length;
  const positions = new Set<number>(cleaned.kinds.keys());
  for (const position of condensed?.keys() ?? []) positions.add(position);
  dropped?.forEach((flag, position) => {
    if (flag === 1) positions.add(position);
  });
  for (const position of [...positions].sort((a, b) => a - b)) {
    const message = thread.messages[position] as Message;
    if (message.role !== "tool") continue;
    if (dropped?.[position] === 1) {
      // Dropped with its exchange: condensed to a snippet of the backstop's note.
      entries.push({
        toolCallId: message.toolCallId,
        kind: "backstop",
        charsBefore: thread.chars[position] as number,
        charsAfter: 0,
      });
      continue;
    }
    const standIn = condensed?.get(position);
    const kind = standIn ? "backstop" : (cleaned.kinds.get(position) as LedgerEntry["kind"]);
    const after = standIn ?? (view.messages[position] as Message);
    entries.push({
      toolCallId: message.toolCallId,
      kind,
      charsBefore: thread.chars[position] as number,
      charsAfter: messageChars(after),
    });
    // A backstop stand-in is new when the cut is (the turn's earlier calls had another);
    // a cleaning one when the previous view did not show the result condensed.
    const isNew = standIn
      ? shown === undefined || compacted.cutNow
      : shown === undefined
        ? after !== message
        : !shown.has(message.toolCallId);
    if (isNew) firstChange = Math.min(firstChange, position);
  }
  if (dropped && (shown === undefined || compacted.cutNow)) {
    const first = dropped.indexOf(1);
    if (first >= 0) firstChange = Math.min(firstChange, first);
  }
  let kept = 0;
  for (let position = 0; position < firstChange; position++) {
    if (dropped?.[position] === 1) continue;
    const standIn = condensed?.get(position);
    kept += standIn
      ? messageChars(standIn)
      : view.replaced.has(position)
        ? messageChars(view.messages[position] as Message)
        : (thread.chars[position] as number);
  }
  const noteFirst = dropped ? dropped.indexOf(1) : -1;
  if (noteFirst >= 0 && noteFirst < firstChange) {
    // The note stands where the first dropped message stood, inside the kept prefix.
    kept += compacted.chars - keptWithoutNote(view, compacted);
  }
  return {
    entries,
    // Cleaning's condensations, whatever the backstop then did with them: the backstop
    // decides its own anew from the thread at every call.
    condensedIds: [...cleaned.kinds.keys()]
      .sort((a, b) => a - b)
      .map((position) => (thread.messages[position] as ToolMessage).toolCallId),
    batch: cleaned.batch,
    prefixKeptMessages: firstChange,
    invalidatedChars: firstChange >= thread.length ? 0 : Math.max(0, compacted.chars - kept),
  };
}

/** Chars of the compacted view without its note. */
function keptWithoutNote(view: BackstopView, compacted: BackstopResult): number {
  let total = 0;
  view.messages.forEach((message, position) => {
    if (compacted.dropped?.[position] === 1) return;
    total += messageChars(compacted.condensed?.get(position) ?? message);
  });
  return total;
}
