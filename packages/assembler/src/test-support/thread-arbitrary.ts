/**
 * fast-check generators of well-formed neutral threads (DESIGN §3) and of digest maps
 * built from them, for the assembler's property tests.
 *
 * A thread is generated as a list of step specs, then built deterministically: tool call
 * ids are `call_<n>` (or "" now and then), every assistant tool call is followed by exactly
 * one result per call, in order, and content is a pure function of the spec, so a
 * "repeat" spec reproduces an earlier read byte for byte (same args, same content).
 */
import fc from "fast-check";
import { contentSha256 } from "../hash";
import { DIGEST_HEADER } from "../stubs";
import type {
  AssistantMessage,
  ContentBlock,
  DigestEntry,
  DigestMap,
  Message,
  MessageContent,
  ToolCall,
  ToolMessage,
} from "../types";

type ReadSpec = {
  kind: "read";
  file: number;
  page: number;
  variant: number;
  ledger: boolean;
  blocks: boolean;
  omitOffset: boolean;
};
type CallSpec =
  | ReadSpec
  | { kind: "repeat"; which: number }
  | { kind: "search"; query: number; variant: number }
  | { kind: "ask-user"; variant: number }
  | { kind: "save-memory"; variant: number }
  | { kind: "unknown"; tool: number; content: "text" | "empty" | "blocks" | "image"; variant: number }
  | {
      kind: "error";
      tool: "read_document" | "search" | "unknown";
      textOnly: boolean;
      retry: boolean;
      /** The same args and text on every attempt, so failed calls can be exact duplicates. */
      repeatable: boolean;
    };

interface CallStep {
  spec: CallSpec;
  emptyId: boolean;
}

type Step =
  | { kind: "user"; text: number; mentionFile: number | null; mentionCall: number | null; blocks: boolean }
  | { kind: "assistant"; text: number; calls: CallStep[] };

interface ThreadSpec {
  system: boolean;
  leadingUser: boolean;
  steps: Step[];
}

const FILES = ["cd_9f2", "cd_a01", "lease_77", "nda-3"];
const QUERIES = ["assignment clause", "rent escalator", "indemnity cap"];
const UNKNOWN_TOOLS = ["calculator", "fetch_url", "run_sql"];
const USER_TEXTS = [
  "Summarize the lease.",
  "What is the base rent?",
  "",
  "Check the assignment terms and compare them with the NDA.",
];
const ASSISTANT_TEXTS = ["", "Let me read that.", "Here is what I found so far."];
const FILLER = [
  "The Tenant shall pay base rent of $1,250,000 per year. ",
  "Section 8.2 governs assignment; consent not unreasonably withheld. ",
  "Exhibit B sets a 2.5% annual escalator from year 6. ",
];

const readSpec: fc.Arbitrary<ReadSpec> = fc.record({
  kind: fc.constant("read" as const),
  file: fc.nat({ max: FILES.length - 1 }),
  page: fc.nat({ max: 4 }),
  variant: fc.nat({ max: 5 }),
  ledger: fc.boolean(),
  blocks: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
  omitOffset: fc.boolean(),
});

const callSpec: fc.Arbitrary<CallSpec> = fc.oneof(
  { weight: 6, arbitrary: readSpec },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("repeat" as const), which: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("search" as const),
      query: fc.nat({ max: QUERIES.length - 1 }),
      variant: fc.nat({ max: 2 }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("ask-user" as const), variant: fc.nat({ max: 1 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant("save-memory" as const), variant: fc.nat({ max: 1 }) }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("unknown" as const),
      tool: fc.nat({ max: UNKNOWN_TOOLS.length - 1 }),
      content: fc.constantFrom("text" as const, "empty" as const, "blocks" as const, "image" as const),
      variant: fc.nat({ max: 2 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("error" as const),
      tool: fc.constantFrom("read_document" as const, "search" as const, "unknown" as const),
      textOnly: fc.boolean(),
      retry: fc.integer({ min: 0, max: 3 }).map((n) => n !== 0),
      repeatable: fc.boolean(),
    }),
  },
);

const callStep: fc.Arbitrary<CallStep> = fc.record({
  spec: callSpec,
  emptyId: fc.integer({ min: 0, max: 15 }).map((n) => n === 0),
});

const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("user" as const),
      text: fc.nat({ max: USER_TEXTS.length - 1 }),
      mentionFile: fc.option(fc.nat({ max: FILES.length - 1 }), { freq: 3 }),
      mentionCall: fc.option(fc.nat({ max: 40 }), { freq: 4 }),
      blocks: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant("assistant" as const),
      text: fc.nat({ max: ASSISTANT_TEXTS.length - 1 }),
      calls: fc.array(callStep, { maxLength: 3 }),
    }),
  },
);

const threadSpec: fc.Arbitrary<ThreadSpec> = fc.record({
  system: fc.integer({ min: 0, max: 9 }).map((n) => n !== 0),
  leadingUser: fc.integer({ min: 0, max: 9 }).map((n) => n !== 0),
  steps: fc.array(step, { maxLength: 28 }),
});

function pageText(spec: ReadSpec): string {
  const file = FILES[spec.file] as string;
  const head =
    spec.ledger && spec.page === 0 ? "TRACKED CHANGES (comment ledger): [C1] confirm escalator. " : "";
  const body = FILLER[spec.variant % FILLER.length] as string;
  return `${head}Document ${file}, page ${spec.page + 1} (rev ${spec.variant}). ${body.repeat(1 + spec.variant * 3)}`;
}

function asContent(text: string, blocks: boolean): MessageContent {
  return blocks ? [{ type: "text", text }] : text;
}

interface BuiltCall {
  call: ToolCall;
  result: ToolMessage;
}

function buildRead(spec: ReadSpec, id: string): BuiltCall {
  const args: Record<string, unknown> = { file_id: FILES[spec.file] };
  if (!(spec.page === 0 && spec.omitOffset)) args.offset = spec.page * 1_000;
  return {
    call: { id, name: "read_document", args },
    result: {
      role: "tool",
      toolCallId: id,
      toolName: "read_document",
      content: asContent(pageText(spec), spec.blocks),
    },
  };
}

function buildCall(spec: CallSpec, id: string, reads: readonly ReadSpec[], attempt: number): BuiltCall {
  switch (spec.kind) {
    case "read":
      return buildRead(spec, id);
    case "repeat": {
      const earlier = reads.length > 0 ? reads[spec.which % reads.length] : undefined;
      return buildRead(
        earlier ?? {
          kind: "read",
          file: 0,
          page: 1,
          variant: 0,
          ledger: false,
          blocks: false,
          omitOffset: false,
        },
        id,
      );
    }
    case "search": {
      const query = QUERIES[spec.query] as string;
      const hits = [0, 1, 2].map((n) => `id: doc_${spec.query}_${n + spec.variant} — ${query} hit ${n}`);
      return {
        call: { id, name: "search", args: { query } },
        result: { role: "tool", toolCallId: id, toolName: "search", content: hits.join("\n") },
      };
    }
    case "ask-user":
      return {
        call: { id, name: "ask_user", args: { question: "Proceed with the redline?" } },
        result: {
          role: "tool",
          toolCallId: id,
          toolName: "ask_user",
          content: spec.variant === 0 ? "Yes, go ahead." : "No, wait.",
        },
      };
    case "save-memory":
      return {
        call: { id, name: "save_memory", args: { note: `prefers summaries ${spec.variant}` } },
        result: { role: "tool", toolCallId: id, toolName: "save_memory", content: "Saved." },
      };
    case "unknown": {
      const name = UNKNOWN_TOOLS[spec.tool] as string;
      const text = `${name} output ${spec.variant}: 42`;
      const content: MessageContent =
        spec.content === "empty"
          ? ""
          : spec.content === "blocks"
            ? [
                { type: "text", text },
                { type: "text", text: "second block" },
              ]
            : spec.content === "image"
              ? ([
                  { type: "text", text },
                  { type: "image", source: { type: "base64", data: "iVBORw0KGgo=" } },
                ] as ContentBlock[])
              : text;
      return {
        call: { id, name, args: { input: spec.variant } },
        result: { role: "tool", toolCallId: id, toolName: name, content },
      };
    }
    case "error": {
      if (spec.repeatable) attempt = 0;
      const name = spec.tool === "unknown" ? "fetch_url" : spec.tool;
      const args: Record<string, unknown> =
        spec.tool === "read_document"
          ? { file_id: FILES[1], offset: 2_000 + attempt }
          : spec.tool === "search"
            ? { query: QUERIES[0] }
            : { input: attempt };
      const text = `Error: upstream timeout after 30s (attempt ${attempt})\n  at fetch (tool.js:10)`;
      return {
        call: { id, name, args },
        result: {
          role: "tool",
          toolCallId: id,
          toolName: name,
          content: text,
          ...(spec.textOnly ? {} : { status: "error" as const }),
        },
      };
    }
  }
}

/** Builds the messages of a thread spec (pure: the same spec gives equal messages). */
export function buildThread(spec: ThreadSpec): Message[] {
  const messages: Message[] = [];
  const reads: ReadSpec[] = [];
  let nextId = 0;
  const newId = (empty: boolean) => (empty ? "" : `call_${nextId++}`);
  if (spec.system) messages.push({ role: "system", content: "You are a careful legal assistant." });
  if (spec.leadingUser) messages.push({ role: "user", content: "Please review the documents." });

  const pushExchange = (text: string, built: BuiltCall[]) => {
    const assistant: AssistantMessage = {
      role: "assistant",
      content: text,
      toolCalls: built.map((b) => b.call),
    };
    messages.push(assistant, ...built.map((b) => b.result));
  };

  for (const current of spec.steps) {
    if (current.kind === "user") {
      const parts = [USER_TEXTS[current.text] as string];
      if (current.mentionFile !== null) parts.push(`Look again at ${FILES[current.mentionFile]}.`);
      if (current.mentionCall !== null && current.mentionCall < nextId) {
        parts.push(`What did call_${current.mentionCall} return?`);
      }
      const text = parts.join(" ").trim();
      messages.push({ role: "user", content: asContent(text, current.blocks) });
      continue;
    }
    if (current.calls.length === 0) {
      messages.push({ role: "assistant", content: ASSISTANT_TEXTS[current.text] as string });
      continue;
    }
    const built = current.calls.map((call) => {
      const result = buildCall(call.spec, newId(call.emptyId), reads, nextId);
      if (call.spec.kind === "read") reads.push(call.spec);
      return result;
    });
    pushExchange(ASSISTANT_TEXTS[current.text] as string, built);
    const retries = current.calls.filter(
      (call): call is CallStep & { spec: Extract<CallSpec, { kind: "error" }> } =>
        call.spec.kind === "error" && call.spec.retry,
    );
    if (retries.length > 0) {
      pushExchange(
        "Retrying.",
        retries.map((call) => {
          const retried = buildCall({ ...call.spec, retry: false }, newId(false), reads, nextId);
          const success = `Result of ${retried.call.name} after retry: ok (${retried.call.id})`;
          const result: ToolMessage = {
            role: "tool",
            toolCallId: retried.call.id,
            toolName: retried.call.name,
            content: success,
          };
          return { call: retried.call, result };
        }),
      );
    }
  }
  return messages;
}

/** Well-formed neutral threads. */
export const threadArbitrary: fc.Arbitrary<Message[]> = threadSpec.map(buildThread);

/** The rendered text of a generated digest row (always opens with the digest header). */
export function generatedDigestText(message: ToolMessage, long: boolean): string {
  const lines = [
    DIGEST_HEADER,
    `tool: ${message.toolName}`,
    `digest:\n  - condensed result of ${message.toolCallId}`,
  ];
  if (long) lines.push(`  - ${"detail ".repeat(60)}`);
  return lines.join("\n");
}

type RowChoice = "none" | "correct" | "stale";

/**
 * Digest maps built from a thread: per tool result with a non-empty id, no row, a row
 * with the right `contentSha256`, or a stale row (hash of other content); digest texts
 * are sometimes longer than the original. Rows keyed "" and for unknown ids appear too.
 */
export function digestMapArbitrary(messages: readonly Message[]): fc.Arbitrary<DigestMap> {
  const results = messages.filter((message): message is ToolMessage => message.role === "tool");
  const choice = fc.oneof(
    { weight: 3, arbitrary: fc.constant<RowChoice>("none") },
    { weight: 4, arbitrary: fc.constant<RowChoice>("correct") },
    { weight: 1, arbitrary: fc.constant<RowChoice>("stale") },
  );
  return fc
    .record({
      choices: fc.array(fc.tuple(choice, fc.boolean()), {
        minLength: results.length,
        maxLength: results.length,
      }),
      extraRows: fc.boolean(),
    })
    .map(({ choices, extraRows }) => {
      const map = new Map<string, DigestEntry>();
      results.forEach((message, index) => {
        const [row, long] = choices[index] as [RowChoice, boolean];
        if (row === "none" || message.toolCallId === "") return;
        const digest = generatedDigestText(message, long);
        const contentSha =
          row === "correct"
            ? contentSha256(message.content)
            : contentSha256(`stale: an earlier version of ${message.toolCallId}`);
        map.set(message.toolCallId, { digest, contentSha256: contentSha, digestChars: digest.length });
      });
      if (extraRows) {
        const digest = `${DIGEST_HEADER}\ndigest: orphan row`;
        map.set("", { digest, contentSha256: contentSha256(""), digestChars: digest.length });
        map.set("call_unknown", { digest, contentSha256: contentSha256("x"), digestChars: digest.length });
      }
      return map;
    });
}

/** A thread together with a digest map built from it. */
export const threadWithDigestsArbitrary: fc.Arbitrary<{ messages: Message[]; digests: DigestMap }> =
  threadArbitrary.chain((messages) => digestMapArbitrary(messages).map((digests) => ({ messages, digests })));
