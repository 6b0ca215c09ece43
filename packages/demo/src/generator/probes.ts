import type { Message } from "@context-cleaner/assembler";
import type { Fact } from "./contract-writer";

/** A question whose answer is a figure on one page the cleaner may condense. */
export interface Probe {
  question: string;
  answer: string;
  /** The read whose result holds the answer (the only tool result that does). */
  toolCallId: string;
}

/** Whitespace collapsed to single spaces, trimmed: how probe answers are matched. */
export function normalize(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function argsText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

/** A thread's text as the probes are matched against it: every tool result, and everything else. */
export interface ThreadText {
  /** Tool results in thread order, normalised, with the `offset` arg of their call if it has one. */
  results: { toolCallId: string; text: string; offset: number | undefined }[];
  /** User, system and assistant text and every tool call's args, normalised. */
  other: string[];
}

export function threadText(messages: readonly Message[]): ThreadText {
  const results: ThreadText["results"] = [];
  const other: string[] = [];
  const offsets = new Map<string, number>();
  for (const message of messages) {
    if (message.role === "assistant") {
      other.push(normalize(String(message.content)));
      for (const call of message.toolCalls ?? []) {
        other.push(normalize(argsText(call.args)));
        if (typeof call.args.offset === "number") offsets.set(call.id, call.args.offset);
      }
    } else if (message.role === "tool") {
      results.push({
        toolCallId: message.toolCallId,
        text: normalize(String(message.content)),
        offset: offsets.get(message.toolCallId),
      });
    } else {
      other.push(normalize(String(message.content)));
    }
  }
  return { results, other };
}

/** Facts planted in one source (a document, a command's output), and whether its first page is no place for a probe. */
export interface FactSource {
  facts: readonly Fact[];
  /** Its first page (offset 0) opens with a comment ledger, which the keep-rules keep raw. */
  skipFirstPage?: boolean;
}

/** A probe and the position of its result among the thread's results. */
export interface ProbeCandidate extends Probe {
  order: number;
}

/**
 * The facts that can be probes: each answer occurs in exactly one tool result and nowhere
 * else in the thread (no other result, no user or assistant text, no tool-call args), not
 * on a skipped first page and not `cited`; each answer once, in the sources' order, then
 * sorted (stably) by the result that holds it.
 */
export function probeCandidates(
  text: ThreadText,
  sources: readonly FactSource[],
  cited: ReadonlySet<string> = new Set(),
): ProbeCandidate[] {
  const candidates: ProbeCandidate[] = [];
  const seen = new Set<string>();
  for (const source of sources) {
    for (const fact of source.facts) {
      if (cited.has(fact.answer) || seen.has(fact.answer)) continue;
      seen.add(fact.answer);
      const holders = text.results.filter((result) => result.text.includes(fact.answer));
      if (holders.length !== 1 || text.other.some((other) => other.includes(fact.answer))) continue;
      const holder = holders[0] as (typeof text.results)[number];
      if (holder.offset === 0 && source.skipFirstPage) continue;
      candidates.push({ ...fact, toolCallId: holder.toolCallId, order: text.results.indexOf(holder) });
    }
  }
  candidates.sort((left, right) => left.order - right.order);
  return candidates;
}

/** `count` candidates evenly spaced over all of them, in thread order. */
export function evenlySpaced(candidates: readonly ProbeCandidate[], count: number): Probe[] {
  const step = Math.max(1, candidates.length / count);
  const probes: Probe[] = [];
  for (let position = 0; position < candidates.length && probes.length < count; position += step) {
    const { question, answer, toolCallId } = candidates[Math.floor(position)] as Probe;
    probes.push({ question, answer, toolCallId });
  }
  return probes;
}

/**
 * Probes spread over every result that holds a candidate: `perResult(chars)` of each
 * result's candidates (at least one, evenly spaced over them), in thread order, so every
 * page or output with a usable fact is probed.
 */
export function probesOverEveryResult(
  text: ThreadText,
  candidates: readonly ProbeCandidate[],
  perResult: (chars: number) => number,
): Probe[] {
  const byResult = new Map<number, ProbeCandidate[]>();
  for (const candidate of candidates) {
    const group = byResult.get(candidate.order) ?? [];
    group.push(candidate);
    byResult.set(candidate.order, group);
  }
  const probes: Probe[] = [];
  for (const [order, group] of [...byResult].sort((left, right) => left[0] - right[0])) {
    const chars = text.results[order]?.text.length ?? 0;
    probes.push(...evenlySpaced(group, Math.max(1, perResult(chars))));
  }
  return probes;
}
