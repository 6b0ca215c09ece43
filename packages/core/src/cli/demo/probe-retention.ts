import type { Message } from "@context-cleaner/assembler";
import { contentText } from "@context-cleaner/assembler/internal";
import type { Probe } from "./heavy-thread";

export interface ProbeRetention {
  total: number;
  /** Answer verbatim in the assembled view. */
  inView: number;
  /** Not in view, but the page holding it is condensed with a re-read call for it. */
  oneReReadAway: number;
  lost: Probe[];
}

/**
 * Whether each probe stays answerable : its answer is in the assembled
 * view, or the page it was read in is one recorded re-read call away.
 */
export function probeRetention(view: readonly Message[], probes: readonly Probe[]): ProbeRetention {
  const text = view.map((message) => contentText(message.content)).join("\n");
  const result: ProbeRetention = { total: probes.length, inView: 0, oneReReadAway: 0, lost: [] };
  for (const probe of probes) {
    if (text.includes(probe.answer)) result.inView++;
    else if (
      text.includes(`re-read: read_document(file_id=${JSON.stringify(probe.fileId)}, offset=${probe.offset})`)
    )
      result.oneReReadAway++;
    else result.lost.push(probe);
  }
  return result;
}
