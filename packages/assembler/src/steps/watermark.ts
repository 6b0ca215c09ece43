/**
 * Relief inside a long turn (docs/architecture.md#relief-inside-a-long-turn). A turn that
 * reads a dozen long documents outgrows the history budget before it ends, and the turn
 * under way is inside the recency wall. When a call's view passes the budget (the high
 * water), the results of the turn the agent has moved past (all but its latest exchanges)
 * land condensed in one batch: a digest row when the worker wrote one, else an extractive
 * condensation made here (headings and every figure verbatim, with the re-read call), or,
 * for a tool that is not idempotent and with `read_original` on, the command, its exit
 * status, the output's head and tail and the handle that returns it whole (observation
 * masking). The turn's later calls append to that view until it passes the budget again;
 * what a batch condensed stays condensed (`cache.shown`).
 *
 * A batch changes history before the latest assistant message, whose thinking (or
 * reasoning item) the provider then no longer accepts: while it carries any, no batch lands
 * unless the runtime lets the provider drop it (`dropLatestThinking`: Anthropic's
 * `prefix_mismatch_behavior: "drop_block"` with its beta header; OpenAI drops it anyway).
 */
import { extractiveLines } from "../budget-condense";
import { contentText } from "../content";
import { DIGEST_HEADER, renderOriginalHandle, renderToolCall, withOriginalHandle } from "../contract/stubs";
import { InvalidOptionError } from "../errors";
import { recencyWallStart } from "../rules/keep-rules";
import type { ThreadFacts } from "../thread/thread-facts";
import type { DigestMap, Message, ToolCall } from "../types";

/** Defaults of {@link WatermarkOptions}. */
export const WATERMARK_DEFAULTS = {
  /** The turn's latest exchanges a batch leaves raw (the latest one always). */
  keepExchanges: 1,
  /** Share of the history budget below which the turn's view is left as it is. */
  startRatio: 0.5,
  dropLatestThinking: false,
  /** An extractive condensation's size, stretching for its figures up to `condensedCharsMax`. */
  condensedChars: 4_000,
  condensedCharsMax: 8_000,
  /** Chars of a masked output's head, and of its tail. */
  maskChars: 600,
} as const;

/** Relief inside a long turn: what a watermark batch leaves raw, and whether it may cost the latest thinking. */
export interface WatermarkOptions {
  /** The turn's latest assistant/tool exchanges a batch leaves raw; at least 1 (the latest exchange is never touched). @default 1 */
  keepExchanges?: number;
  /**
   * Share of `historyBudgetChars` in (0, 1] below which the turn's view is left as it is:
   * past it a batch lands where it pays at the tariff; past the budget itself (the high
   * water) it lands whatever it pays. @default 0.5
   */
  startRatio?: number;
  /**
   * Let a batch land while the latest assistant message of the loop carries thinking or a
   * reasoning item: the provider drops it (send Anthropic's
   * `thinking.block_binding.prefix_mismatch_behavior: "drop_block"` with the beta header
   * `thinking-binding-controls-2026-08-01`, or the request is refused). @default false
   */
  dropLatestThinking?: boolean;
}

export interface ResolvedWatermark {
  keepExchanges: number;
  startRatio: number;
  dropLatestThinking: boolean;
}

/**
 * Validates `options.watermark` and fills in its defaults; undefined for `false` (no relief
 * inside a turn).
 * @throws {InvalidOptionError} naming the field.
 */
export function resolveWatermark(
  option: WatermarkOptions | false | undefined,
): ResolvedWatermark | undefined {
  if (option === false) return undefined;
  if (option !== undefined && (option === null || typeof option !== "object")) {
    throw new InvalidOptionError("options.watermark must be an object or false", "watermark");
  }
  const keepExchanges = option?.keepExchanges ?? WATERMARK_DEFAULTS.keepExchanges;
  if (!Number.isInteger(keepExchanges) || keepExchanges < 1) {
    throw new InvalidOptionError(
      `options.watermark.keepExchanges must be an integer ≥ 1, got ${String(keepExchanges)}`,
      "watermark.keepExchanges",
    );
  }
  const startRatio = option?.startRatio ?? WATERMARK_DEFAULTS.startRatio;
  if (typeof startRatio !== "number" || !(startRatio > 0 && startRatio <= 1)) {
    throw new InvalidOptionError(
      `options.watermark.startRatio must be a number in (0, 1], got ${String(startRatio)}`,
      "watermark.startRatio",
    );
  }
  const drop = option?.dropLatestThinking ?? WATERMARK_DEFAULTS.dropLatestThinking;
  if (typeof drop !== "boolean") {
    throw new InvalidOptionError(
      `options.watermark.dropLatestThinking must be a boolean, got ${String(drop)}`,
      "watermark.dropLatestThinking",
    );
  }
  return { keepExchanges, startRatio, dropLatestThinking: drop };
}

/**
 * Start of the turn's latest `keep` exchanges: the position of the `keep`-th latest
 * assistant message at or after `wallStart` (the turn's user message), or `wallStart` when
 * the turn has fewer. Results before it, in the turn, are the ones the agent moved past.
 */
export function innerWallOf(messages: readonly Message[], wallStart: number, keep: number): number {
  let seen = 0;
  for (let index = messages.length - 1; index >= wallStart; index--) {
    if ((messages[index] as Message).role !== "assistant") continue;
    seen++;
    if (seen === keep) return index;
  }
  return wallStart;
}

/**
 * The wall a mid-turn digest pass classifies with: the start of the turn's latest
 * `keepExchanges` exchanges ({@link innerWallOf} from the recency wall). What lies before it
 * is what the agent has moved past, the results a watermark batch may condense, so the
 * worker digests those for the turn's later batches.
 */
export function midTurnWallStart(
  messages: readonly Message[],
  recencyKeepExchanges: number,
  keepExchanges: number = WATERMARK_DEFAULTS.keepExchanges,
): number {
  return innerWallOf(messages, recencyWallStart(messages, recencyKeepExchanges), keepExchanges);
}

const texts = new WeakMap<Message, { readOriginal: string | undefined; text: string | undefined }>();

/**
 * What a batch shows for the in-turn result at `index`: its hash-matched digest row, or a
 * condensation made here; undefined when it stays raw (a keep-rule keeps it, it failed, no
 * id names it alone, or nothing shorter is true to it).
 */
export function inTurnCondensation(
  facts: ThreadFacts,
  digests: Pick<DigestMap, "get"> | null | undefined,
  index: number,
): { text: string; kind: "digest" | "superseded-search" | "condensed" } | undefined {
  const message = facts.message(index);
  const result = facts.at(index);
  if (result === undefined || result.reason !== undefined || result.failed) return undefined;
  if (message.toolCallId === "" || facts.thread.calls.sharesResultId(index)) return undefined;
  const chars = facts.thread.chars[index] as number;
  const entry = digests?.get(message.toolCallId);
  if (entry && facts.thread.hashAt(index) === entry.contentSha256 && entry.digest.length < chars) {
    return { text: entry.digest, kind: entry.kind === "superseded-search" ? "superseded-search" : "digest" };
  }
  const cached = texts.get(message);
  const text =
    cached !== undefined && cached.readOriginal === facts.readOriginal
      ? cached.text
      : condensationOf(facts, index, message);
  texts.set(message, { readOriginal: facts.readOriginal, text });
  return text !== undefined && text.length < chars ? { text, kind: "condensed" } : undefined;
}

function condensationOf(facts: ThreadFacts, index: number, message: Message): string | undefined {
  if (message.role !== "tool") return undefined;
  const call = facts.thread.calls.callAt(index) as ToolCall | undefined;
  if (call === undefined) return undefined;
  const rule = facts.policy.ruleFor(message.toolName);
  const content = contentText(message.content);
  const handle =
    facts.readOriginal === undefined
      ? undefined
      : renderOriginalHandle(message.toolCallId, facts.readOriginal);
  if (rule.idempotent) {
    const reread = renderToolCall(call, rule.provenanceArgs);
    const head = [
      DIGEST_HEADER,
      `tool: ${message.toolName}`,
      `source: ${reread} · ${content.length.toLocaleString("en-US")} chars`,
    ];
    const rereadLine =
      handle === undefined ? `re-read: ${reread}` : withOriginalHandle(`re-read: ${reread}`, handle);
    const fixed = head.reduce((sum, line) => sum + line.length + 1, 0) + rereadLine.length + 1;
    const body = extractiveLines(content, {
      fixedChars: fixed,
      capChars: WATERMARK_DEFAULTS.condensedChars,
      capMaxChars: WATERMARK_DEFAULTS.condensedCharsMax,
    });
    return [...head, ...body.lines, rereadLine].join("\n");
  }
  // Not idempotent: re-running returns current data, so only the recorded output is the original.
  return handle === undefined ? undefined : maskedOutput(call, rule.provenanceArgs, content, handle);
}

const EXIT_STATUS =
  /\b(?:exit(?:ed)?(?: with)?(?: code| status)|exit_code|returncode|return code)\b[ :=]*(-?\d{1,3})/i;

/** Observation masking: the command, its exit status when the output says it, the head and the tail, the handle. */
function maskedOutput(call: ToolCall, argNames: readonly string[], content: string, handle: string): string {
  const keep = WATERMARK_DEFAULTS.maskChars;
  const status = EXIT_STATUS.exec(content);
  const lines = [
    `[Condensed by context-cleaner — the output as recorded is one call away: ${handle}.]`,
    `command: ${renderToolCall(call, argNames)}`,
    ...(status ? [`exit status: ${status[1]}`] : []),
    `output: ${content.length.toLocaleString("en-US")} chars; head and tail:`,
  ];
  if (content.length <= 2 * keep) return [...lines, content].join("\n");
  return [
    ...lines,
    content.slice(0, keep),
    `[… ${(content.length - 2 * keep).toLocaleString("en-US")} chars …]`,
    content.slice(-keep),
  ].join("\n");
}
