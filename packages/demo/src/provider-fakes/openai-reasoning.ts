/**
 * A fake of OpenAI's handling of reasoning items sent back, built from its documentation
 * ("keep the prefix unchanged"): newer reasoning models drop a reasoning item when the
 * history before it changed since it was produced (shortening an earlier tool result is
 * such a change), and report each in `input_transformations` with the reason
 * `prefix_mismatch`. Nothing is refused: the model silently loses the reasoning.
 *
 * The messages are Chat Completions messages; an assistant message carries its reasoning
 * item in `reasoning` (`{ id, … }`, as a Responses API reasoning item) or
 * `reasoning_content`. The prefix of an item is every message before its own, without
 * reasoning fields, compared by value (JSON key order does not matter).
 */
import { createHash } from "node:crypto";
import { canonicalJson } from "@context-cleaner/assembler/internal";

/** A Chat Completions message, as far as the check reads it. */
export interface ChatMessageLike {
  role: string;
  [key: string]: unknown;
}

export interface ReasoningDrop {
  type: "reasoning";
  action: "removed";
  id: string;
  reason: "prefix_mismatch";
}

const REASONING_FIELDS = ["reasoning", "reasoning_content"] as const;

function reasoningId(message: ChatMessageLike): string | undefined {
  const item = message.reasoning;
  if (item !== null && typeof item === "object" && typeof (item as { id?: unknown }).id === "string") {
    return (item as { id: string }).id;
  }
  const text = message.reasoning_content;
  return typeof text === "string" && text.startsWith("rs_") ? text.split(" ")[0] : undefined;
}

function withoutReasoning(message: ChatMessageLike): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...message };
  for (const field of REASONING_FIELDS) delete copy[field];
  if (copy.content === undefined) copy.content = null;
  return copy;
}

function prefixHash(messages: readonly ChatMessageLike[], end: number): string {
  const hash = createHash("sha256");
  for (let index = 0; index < end; index++) {
    hash.update(canonicalJson(withoutReasoning(messages[index] as ChatMessageLike))).update("\u0000");
  }
  return hash.digest("hex");
}

/** The provider's side of reasoning items: it issues them and drops the ones whose prefix changed. */
export class OpenAIReasoningBinder {
  private readonly issued = new Map<string, string>();
  private counter = 0;
  /** Requests checked and reasoning items dropped since this binder was made. */
  readonly tally = { requests: 0, droppedItems: 0 };

  /** The assistant message answering `messages`, carrying a new reasoning item bound to them. */
  issue<M extends ChatMessageLike>(messages: readonly ChatMessageLike[], reply: M): M {
    this.counter++;
    const id = `rs_${this.counter}`;
    this.issued.set(id, prefixHash(messages, messages.length));
    return { ...reply, reasoning: { id, type: "reasoning", summary: [] } };
  }

  /** The reasoning items of a request the provider drops (listed as `input_transformations`). */
  check(messages: readonly ChatMessageLike[]): ReasoningDrop[] {
    this.tally.requests++;
    const drops: ReasoningDrop[] = [];
    messages.forEach((message, index) => {
      if (message.role !== "assistant") return;
      const id = reasoningId(message);
      if (id === undefined) return;
      if (this.issued.get(id) !== prefixHash(messages, index)) {
        drops.push({ type: "reasoning", action: "removed", id, reason: "prefix_mismatch" });
      }
    });
    this.tally.droppedItems += drops.length;
    return drops;
  }
}
