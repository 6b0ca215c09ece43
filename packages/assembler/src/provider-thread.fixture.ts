/**
 * Agent threads for the provider-format adapters' tests: one spec of turns, rendered in
 * the Anthropic Messages, OpenAI Chat Completions and AI SDK prompt formats, plus a
 * fast-check generator of specs (paged document reads, duplicates, failed calls,
 * interrupts, text beside tool results) and the digest rows a worker would write for them.
 */
import fc from "fast-check";
import { contentSha256 } from "./hash";
import { DIGEST_HEADER } from "./stubs";
import type { DigestEntry, DigestMap, Message } from "./types";

export interface CallSpec {
  tool: string;
  args: Record<string, unknown>;
  result: string;
  error: boolean;
  /** The result as one text block instead of a string. */
  blocks: boolean;
}

export type StepSpec =
  | { kind: "user"; text: string; blocks: boolean }
  | { kind: "exchange"; text: string; calls: CallSpec[]; note: string | null }
  | { kind: "answer"; text: string };

/** A document page whose text names the document and page (deterministic filler). */
export function pageText(fileId: string, offset: number, chars = 1_200): string {
  const head = `Document ${fileId} at offset ${offset}. Rent $1,250,000; §8.2 assignment. `;
  return (head + "Clause text continues. ".repeat(Math.ceil(chars / 23))).slice(0, chars);
}

const FILES = ["cd_9f2", "lease_77"];

const callArbitrary: fc.Arbitrary<CallSpec> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc
      .record({
        file: fc.constantFrom(...FILES),
        page: fc.nat({ max: 1 }),
        error: fc.integer({ min: 0, max: 3 }).map((n) => n === 0),
        blocks: fc.boolean(),
      })
      .map(({ file, page, error, blocks }) => ({
        tool: "read_document",
        args: { file_id: file, offset: page * 1_200 },
        result: error ? "Error: backend timeout\ntrace line" : pageText(file, page * 1_200),
        error,
        blocks,
      })),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom("assignment", "rent").map((q) => ({
      tool: "search",
      args: { q },
      result: `id: cd_9f2\nid: lease_77 (${q})`,
      error: false,
      blocks: false,
    })),
  },
  {
    weight: 1,
    arbitrary: fc.constant({
      tool: "ask_user",
      args: { question: "Proceed?" },
      result: "yes",
      error: false,
      blocks: false,
    }),
  },
  {
    weight: 1,
    arbitrary: fc.nat({ max: 2 }).map((n) => ({
      tool: "calculator",
      args: { expression: `${n}+1` },
      result: String(n + 1),
      error: false,
      blocks: false,
    })),
  },
);

const stepArbitrary: fc.Arbitrary<StepSpec> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("user" as const),
      text: fc.constantFrom("Review the lease.", "What is the rent?", "Compare with the NDA."),
      blocks: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("exchange" as const),
      text: fc.constantFrom("", "Let me read that."),
      calls: fc.array(callArbitrary, { minLength: 1, maxLength: 3 }),
      note: fc.oneof(
        { weight: 4, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.constant("<reminder>keep citing sections</reminder>") },
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("answer" as const), text: fc.constant("Done.") }) },
);

/** A thread spec: a first user message, then steps. */
export const threadSpecArbitrary: fc.Arbitrary<StepSpec[]> = fc
  .array(stepArbitrary, { minLength: 3, maxLength: 18 })
  .map((steps) => [{ kind: "user", text: "Start.", blocks: false } as StepSpec, ...steps]);

/** Calls one id each, numbered in order: `call_1`, `call_2`, … */
function numberCalls(steps: readonly StepSpec[]): string[][] {
  let next = 0;
  return steps.map((step) => (step.kind === "exchange" ? step.calls.map(() => `call_${++next}`) : []));
}

export function renderAnthropic(steps: readonly StepSpec[]): Record<string, unknown>[] {
  const ids = numberCalls(steps);
  return steps.flatMap((step, stepIndex): Record<string, unknown>[] => {
    if (step.kind === "user") {
      return [{ role: "user", content: step.blocks ? [{ type: "text", text: step.text }] : step.text }];
    }
    if (step.kind === "answer") return [{ role: "assistant", content: step.text }];
    const callIds = ids[stepIndex] as string[];
    return [
      {
        role: "assistant",
        content: [
          ...(step.text ? [{ type: "text", text: step.text }] : []),
          ...step.calls.map((call, index) => ({
            type: "tool_use",
            id: callIds[index],
            name: call.tool,
            input: call.args,
          })),
        ],
      },
      {
        role: "user",
        content: [
          ...step.calls.map((call, index) => ({
            type: "tool_result",
            tool_use_id: callIds[index],
            content: call.blocks ? [{ type: "text", text: call.result }] : call.result,
            ...(call.error ? { is_error: true } : {}),
            ...(index === 0 ? { cache_control: { type: "ephemeral" } } : {}),
          })),
          ...(step.note ? [{ type: "text", text: step.note }] : []),
        ],
      },
    ];
  });
}

export function renderOpenAI(steps: readonly StepSpec[]): Record<string, unknown>[] {
  const ids = numberCalls(steps);
  return steps.flatMap((step, stepIndex): Record<string, unknown>[] => {
    if (step.kind === "user") {
      return [{ role: "user", content: step.blocks ? [{ type: "text", text: step.text }] : step.text }];
    }
    if (step.kind === "answer") return [{ role: "assistant", content: step.text }];
    const callIds = ids[stepIndex] as string[];
    return [
      {
        role: "assistant",
        content: step.text || null,
        tool_calls: step.calls.map((call, index) => ({
          id: callIds[index],
          type: "function",
          function: { name: call.tool, arguments: JSON.stringify(call.args) },
        })),
      },
      ...step.calls.map((call, index) => ({
        role: "tool",
        tool_call_id: callIds[index],
        content: call.blocks ? [{ type: "text", text: call.result }] : call.result,
      })),
      ...(step.note ? [{ role: "developer", content: step.note }] : []),
    ];
  });
}

export function renderAiSdk(steps: readonly StepSpec[]): Record<string, unknown>[] {
  const ids = numberCalls(steps);
  return [
    { role: "system", content: "You are a careful legal assistant." },
    ...steps.flatMap((step, stepIndex): Record<string, unknown>[] => {
      if (step.kind === "user") return [{ role: "user", content: [{ type: "text", text: step.text }] }];
      if (step.kind === "answer")
        return [{ role: "assistant", content: [{ type: "text", text: step.text }] }];
      const callIds = ids[stepIndex] as string[];
      return [
        {
          role: "assistant",
          content: [
            ...(step.text ? [{ type: "text", text: step.text }] : []),
            ...step.calls.map((call, index) => ({
              type: "tool-call",
              toolCallId: callIds[index],
              toolName: call.tool,
              input: call.args,
            })),
          ],
        },
        {
          role: "tool",
          content: step.calls.map((call, index) => ({
            type: "tool-result",
            toolCallId: callIds[index],
            toolName: call.tool,
            output: call.blocks
              ? { type: "content", value: [{ type: "text", text: call.result }] }
              : { type: call.error ? "error-text" : "text", value: call.result },
          })),
        },
      ];
    }),
  ];
}

/** The digest text the fixtures use for a tool call id. */
export function fixtureDigest(toolCallId: string): string {
  return `${DIGEST_HEADER}\ntool: read_document\ndigest:\n  - condensed ${toolCallId}: rent $1,250,000; §8.2`;
}

/**
 * Digest rows for the tool results of a neutral thread: `pick(index)` says, per result,
 * whether it gets a row (true), a row with a stale hash ("stale") or none (false).
 */
export function digestsFor(
  neutral: readonly Message[],
  pick: (index: number) => boolean | "stale",
): Map<string, DigestEntry> {
  const digests = new Map<string, DigestEntry>();
  let resultIndex = 0;
  for (const message of neutral) {
    if (message.role !== "tool") continue;
    const choice = pick(resultIndex++);
    if (choice === false || message.toolCallId === "") continue;
    const digest = fixtureDigest(message.toolCallId);
    digests.set(message.toolCallId, {
      digest,
      contentSha256: choice === "stale" ? contentSha256("stale") : contentSha256(message.content),
      digestChars: digest.length,
    });
  }
  return digests;
}

/** A generator of `pick` choices for {@link digestsFor}. */
export const digestPickArbitrary: fc.Arbitrary<(index: number) => boolean | "stale"> = fc
  .array(fc.constantFrom<boolean | "stale">(true, true, false, "stale"), { minLength: 1, maxLength: 60 })
  .map((choices) => (index: number) => choices[index % choices.length] as boolean | "stale");

export type { DigestMap };
