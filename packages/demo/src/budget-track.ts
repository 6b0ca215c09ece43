import {
  BUDGET_DEFAULTS,
  capToolResult,
  type DigestMap,
  effectiveToolChars,
  type Message,
} from "@context-cleaner/assembler";
import { contentChars } from "@context-cleaner/assembler/internal";

/**
 * How the runtime's conversation tool budget counts what a thread spent:
 * - `none`: no caps at all (the raw thread);
 * - `blind`: raw chars of every result so far;
 * - `effective`: {@link effectiveToolChars} (digest chars for digested results, raw above
 *   the raw ceiling) — the budget refund.
 */
export type Accounting = "none" | "blind" | "effective";

/** What the caps did to one arriving result. */
export interface CapEvent {
  /** Cut because the conversation budget was spent (to `overBudgetResultChars`). */
  budgetCut: boolean;
  /** Cut to the per-result cap. */
  perResultCut: boolean;
  /** Chars of the result the caps removed. */
  removedChars: number;
}

/**
 * A thread as the runtime records it under one accounting: each arriving tool result passes
 * through `capToolResult` with the chars spent so far, so a cut result is what the
 * checkpoint holds from then on.
 */
export class BudgetTrack {
  readonly messages: Message[] = [];
  private rawToolChars = 0;

  constructor(readonly accounting: Accounting) {}

  /**
   * Tool chars the budget counts now, with the digests loaded at the turn's start. `shown`:
   * the ids the latest cache-aware view held condensed (its ledger's `condensedIds`); a
   * result whose digest batch that view deferred counts raw, as the runtime counts it.
   * Undefined: every hash-matched digest counts (a cache-unaware view).
   */
  usedChars(digests: DigestMap, shown?: readonly string[]): number {
    if (this.accounting === "effective") {
      return effectiveToolChars(this.messages, digests, {
        disabled: false,
        ...(shown === undefined ? {} : { shown }),
      }).effectiveChars;
    }
    return this.rawToolChars;
  }

  /** Tool chars of the recorded thread. */
  rawChars(): number {
    return this.rawToolChars;
  }

  /** Appends a message; a tool result is capped first (except under `none`), counted as {@link usedChars} counts. */
  append(message: Message, digests: DigestMap, shown?: readonly string[]): CapEvent | undefined {
    if (message.role !== "tool" || this.accounting === "none" || typeof message.content !== "string") {
      if (message.role === "tool") this.rawToolChars += contentChars(message.content);
      this.messages.push(message);
      return undefined;
    }
    const usedChars = this.usedChars(digests, shown);
    const capped = capToolResult(message.content, { usedChars });
    const recorded = capped.capped ? { ...message, content: capped.content } : message;
    this.rawToolChars += contentChars(recorded.content);
    this.messages.push(recorded);
    const budgetCut = capped.capped && usedChars >= BUDGET_DEFAULTS.conversationBudgetChars;
    return {
      budgetCut,
      perResultCut: capped.capped && !budgetCut,
      removedChars: capped.originalChars - capped.keptChars,
    };
  }
}
