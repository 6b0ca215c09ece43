/**
 * A fake of the Anthropic Messages API's checks on thinking blocks sent back ("preserved
 * thinking", Claude Fable 5.1 and later), built from the provider's documentation:
 *
 * - A `thinking` or `redacted_thinking` block is bound to its prefix: the top-level
 *   `system`, the `tools`, and every message (and every earlier block of its own message)
 *   before it, as they were in the request that produced it. `cache_control` markers are
 *   not part of it, nor are JSON formatting and key order, nor other thinking blocks; a
 *   string `content` reads as one text block.
 * - Thinking blocks are not in each other's prefix, but each records the thinking block
 *   before it: the blocks sent back must be an unbroken run of the sequence they were
 *   produced in. Leaving out blocks at the start or at the end (or all of them) is valid;
 *   leaving one out between others, moving one, or putting a removed one back is not.
 * - A block that fails makes every later thinking block of the request fail too. By
 *   default the request is refused with a 400 naming the first failing block
 *   (`messages.N.content.M: Invalid \`signature\` in \`thinking\` block. The block is bound
 *   to a different conversation. …`); with `thinking.block_binding.prefix_mismatch_behavior`
 *   `"drop_block"` and the beta header `thinking-binding-controls-2026-08-01` the failing
 *   blocks are dropped and listed in `input_transformations`.
 * - A signature the API never issued is refused whatever the setting.
 * - A block dropped (drop_block) never reaches the model: the thinking it then produces
 *   follows the last block it did receive.
 * - During tool use, the latest assistant message (the one whose `tool_use` blocks the
 *   request's last message answers) must carry the thinking blocks it was produced with,
 *   complete and unmodified.
 * - A signature covers its block's content: a thinking block whose `thinking` text was
 *   edited, trimmed or emptied is refused like a signature the API never issued.
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "@context-cleaner/assembler/internal";

/** A content block of the Messages API. */
export interface AnthropicBlock {
  type: string;
  [key: string]: unknown;
}

/** A message of the Messages API. */
export interface AnthropicMessage {
  role: string;
  content: string | readonly AnthropicBlock[];
}

/** The parts of a Messages API request the checks read. */
export interface AnthropicRequest {
  system?: unknown;
  tools?: unknown;
  messages: readonly AnthropicMessage[];
  thinking?: { type?: string; block_binding?: { prefix_mismatch_behavior?: "error" | "drop_block" } };
}

/**
 * Appends a `tool_result` block to Messages API messages as a request carries it: into the
 * last message if that is a user message holding only tool results, else as a new user message.
 */
export function appendToolResult(messages: AnthropicMessage[], result: AnthropicBlock): void {
  const last = messages.at(-1);
  if (
    last?.role === "user" &&
    Array.isArray(last.content) &&
    last.content.every((each) => each.type === "tool_result")
  )
    (last.content as AnthropicBlock[]).push(result);
  else messages.push({ role: "user", content: [result] });
}

/** The beta header value `drop_block` needs. */
export const BLOCK_BINDING_BETA = "thinking-binding-controls-2026-08-01";

/** A request's adaptive `thinking` setting, with `drop_block` or not, and the beta header values it needs. */
export function blockBinding(dropBlock: boolean): {
  thinking: NonNullable<AnthropicRequest["thinking"]>;
  betas: string[];
} {
  return dropBlock
    ? {
        thinking: { type: "adaptive", block_binding: { prefix_mismatch_behavior: "drop_block" } },
        betas: [BLOCK_BINDING_BETA],
      }
    : { thinking: { type: "adaptive" }, betas: [] };
}

/** One entry of a response's `input_transformations`. */
export interface InputTransformation {
  type: "thinking_dropped";
  path: string;
  reason: "prefix_binding_mismatch";
}

export type CheckOutcome =
  | { ok: true; inputTransformations: InputTransformation[] }
  | { ok: false; status: 400; type: "invalid_request_error"; message: string };

const THINKING = new Set(["thinking", "redacted_thinking"]);

interface Issued {
  /** Hash of the block's prefix when it was produced. */
  prefix: string;
  /** Signature of the thinking block before it in the run, or null at the start. */
  previous: string | null;
  /** Hash of the block itself as issued, without its signature and `cache_control`. */
  content: string;
}

function signatureOf(block: AnthropicBlock): string | undefined {
  const value = block.type === "redacted_thinking" ? block.data : block.signature;
  return typeof value === "string" ? value : undefined;
}

function blocksOf(message: AnthropicMessage): readonly AnthropicBlock[] {
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
}

/** A block as the prefix check reads it: without `cache_control`, at any depth of a tool result. */
function checkedForm(block: AnthropicBlock): unknown {
  const { cache_control: _marker, ...rest } = block;
  if (Array.isArray(rest.content)) {
    rest.content = (rest.content as AnthropicBlock[]).map((inner) =>
      inner !== null && typeof inner === "object" ? checkedForm(inner) : inner,
    );
  }
  return rest;
}

/** Hash of a thinking block's content: what its signature covers besides its prefix. */
function contentHash(block: AnthropicBlock): string {
  const { signature: _signature, cache_control: _marker, ...rest } = block;
  if (rest.type === "redacted_thinking") delete rest.data;
  return createHash("sha256").update(canonicalJson(rest)).digest("hex");
}

/** The running hash of a request's prefix, block by block. */
class PrefixHash {
  private readonly parts: string[] = [];

  constructor(request: Pick<AnthropicRequest, "system" | "tools">) {
    this.parts.push(
      `system:${canonicalJson(request.system ?? null)}`,
      `tools:${canonicalJson(request.tools ?? null)}`,
    );
  }

  message(index: number, role: string): void {
    this.parts.push(`message:${index}:${role}`);
  }

  block(block: AnthropicBlock): void {
    this.parts.push(canonicalJson(checkedForm(block)));
  }

  digest(): string {
    const hash = createHash("sha256");
    for (const part of this.parts) hash.update(part).update("\u0000");
    return hash.digest("hex");
  }
}

function refusal(message: string): CheckOutcome {
  return { ok: false, status: 400, type: "invalid_request_error", message };
}

/**
 * The API's side of preserved thinking: it signs the thinking blocks of the responses it
 * produces and checks every request that sends them back.
 */
export class AnthropicThinkingBinder {
  private readonly issued = new Map<string, Issued>();
  /** Per request checked with drop_block, the signatures it dropped (they never reach the model). */
  private readonly droppedBy = new WeakMap<AnthropicRequest, ReadonlySet<string>>();
  /** Per tool_use id of a response, the signatures of the thinking it was produced with. */
  private readonly thinkingOfCall = new Map<string, string[]>();
  private counter = 0;
  /** Requests refused, and thinking blocks dropped, since this binder was made. */
  readonly tally = { requests: 0, refused: 0, droppedBlocks: 0 };

  /**
   * The response content to `request` with its thinking blocks signed: each bound to the
   * request's prefix (and the response's earlier blocks) and to the thinking before it.
   * Thinking blocks need only their type (a `thinking` text, if any, is kept).
   */
  sign(request: AnthropicRequest, content: readonly AnthropicBlock[]): AnthropicBlock[] {
    const prefix = new PrefixHash(request);
    let previous: string | null = null;
    const dropped = this.droppedBy.get(request);
    request.messages.forEach((message, index) => {
      prefix.message(index, message.role);
      for (const block of blocksOf(message)) {
        const signature = THINKING.has(block.type) ? signatureOf(block) : undefined;
        if (!THINKING.has(block.type)) prefix.block(block);
        else if (signature !== undefined && dropped?.has(signature) !== true) previous = signature;
      }
    });
    prefix.message(request.messages.length, "assistant");
    const signatures: string[] = [];
    const signed = content.map((block) => {
      if (!THINKING.has(block.type)) {
        prefix.block(block);
        return block;
      }
      this.counter++;
      const digest = prefix.digest();
      const signature = `sig_${this.counter}_${digest.slice(0, 24)}`;
      const issued: AnthropicBlock =
        block.type === "redacted_thinking"
          ? { ...block, data: signature }
          : { thinking: "", ...block, signature };
      this.issued.set(signature, { prefix: digest, previous, content: contentHash(issued) });
      previous = signature;
      signatures.push(signature);
      return issued;
    });
    for (const block of signed) {
      if (block.type === "tool_use" && typeof block.id === "string")
        this.thinkingOfCall.set(block.id, signatures);
    }
    return signed;
  }

  /**
   * Checks a request as the API does before running it.
   * @param betas the `anthropic-beta` header's values.
   */
  check(request: AnthropicRequest, betas: readonly string[] = []): CheckOutcome {
    this.tally.requests++;
    const outcome = this.run(request, betas);
    if (!outcome.ok) this.tally.refused++;
    else this.tally.droppedBlocks += outcome.inputTransformations.length;
    return outcome;
  }

  private run(request: AnthropicRequest, betas: readonly string[]): CheckOutcome {
    const binding = request.thinking?.block_binding;
    if (binding !== undefined && !betas.includes(BLOCK_BINDING_BETA)) {
      return refusal(
        `thinking.block_binding: Extra inputs are not permitted. That setting requires the \`${BLOCK_BINDING_BETA}\` value in the \`anthropic-beta\` header.`,
      );
    }
    const drop = binding?.prefix_mismatch_behavior === "drop_block";
    const present = new Set<string>();
    for (const message of request.messages) {
      for (const block of blocksOf(message)) {
        const signature = THINKING.has(block.type) ? signatureOf(block) : undefined;
        if (signature !== undefined) present.add(signature);
      }
    }
    const transformations: InputTransformation[] = [];
    const droppedSignatures = new Set<string>();
    const prefix = new PrefixHash(request);
    let previous: string | null = null;
    let failing = false;
    for (const [index, message] of request.messages.entries()) {
      prefix.message(index, message.role);
      for (const [blockIndex, block] of blocksOf(message).entries()) {
        if (!THINKING.has(block.type)) {
          prefix.block(block);
          continue;
        }
        const path = `messages.${index}.content.${blockIndex}`;
        const signature = signatureOf(block);
        const issued = signature === undefined ? undefined : this.issued.get(signature);
        if (signature === undefined || issued === undefined || issued.content !== contentHash(block)) {
          return refusal(`${path}: Invalid \`signature\` in \`thinking\` block.`);
        }
        const chained =
          previous === null
            ? issued.previous === null || !present.has(issued.previous)
            : issued.previous === previous;
        if (failing || !chained || issued.prefix !== prefix.digest()) {
          failing = true;
          if (!drop) {
            return refusal(
              `${path}: Invalid \`signature\` in \`thinking\` block. The block is bound to a different conversation. Remove the block, or set \`thinking.block_binding.prefix_mismatch_behavior\` to "drop_block".`,
            );
          }
          transformations.push({ type: "thinking_dropped", path, reason: "prefix_binding_mismatch" });
          droppedSignatures.add(signature);
          continue;
        }
        previous = signature;
      }
    }
    const loop = this.toolLoopProblem(request);
    if (loop !== undefined) return refusal(loop);
    if (droppedSignatures.size > 0) this.droppedBy.set(request, droppedSignatures);
    return { ok: true, inputTransformations: transformations };
  }

  /** The latest assistant message of a tool loop must come back with the thinking it was produced with. */
  private toolLoopProblem(request: AnthropicRequest): string | undefined {
    const messages = request.messages;
    const last = messages.at(-1);
    if (last === undefined || last.role !== "user") return undefined;
    if (!blocksOf(last).some((block) => block.type === "tool_result")) return undefined;
    let at = messages.length - 2;
    while (at >= 0 && (messages[at] as AnthropicMessage).role !== "assistant") at--;
    if (at < 0) return undefined;
    const blocks = blocksOf(messages[at] as AnthropicMessage);
    const call = blocks.find((block) => block.type === "tool_use" && typeof block.id === "string");
    const expected = call === undefined ? undefined : this.thinkingOfCall.get(call.id as string);
    if (expected === undefined || expected.length === 0) return undefined;
    const sent = blocks.filter((block) => THINKING.has(block.type)).map((block) => signatureOf(block));
    if (sent.length === expected.length && sent.every((signature, index) => signature === expected[index])) {
      return undefined;
    }
    const first = blocks[0]?.type ?? "nothing";
    return `messages.${at}.content.0: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block (preceeding the lastmost set of \`tool_use\` and \`tool_result\` blocks).`;
  }
}
