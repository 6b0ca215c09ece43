import {
  BUDGET_DEFAULTS,
  capToolResult,
  type DigestMap,
  effectiveToolChars,
  type Message,
  type OverBudgetMode,
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
  /**
   * Cut (to `overBudgetResultChars`) or condensed at arrival because the conversation budget
   * was spent or the raw tool output was past the raw ceiling.
   */
  budgetCut: boolean;
  /** Condensed at arrival (the track's `overBudget` is `condense`) rather than cut. */
  condensed: boolean;
  /** Cut to the per-result cap. */
  perResultCut: boolean;
  /** Chars of the result the caps removed. */
  removedChars: number;
}

/**
 * A thread as the runtime records it under one accounting: each arriving tool result passes
 * through `capToolResult` with the chars spent so far (and the raw chars, for the raw
 * ceiling), so a cut or condensed result is what the checkpoint holds from then on.
 */
export class BudgetTrack {
  readonly messages: Message[] = [];
  private rawToolChars = 0;

  constructor(
    readonly accounting: Accounting,
    /** What a result over the budget becomes (`capToolResult`'s `overBudget`). */
    readonly overBudget: OverBudgetMode = BUDGET_DEFAULTS.overBudget,
  ) {}

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
    const rawChars = this.rawToolChars;
    const capped = capToolResult(message.content, { usedChars, rawChars, overBudget: this.overBudget });
    const recorded = capped.capped ? { ...message, content: capped.content } : message;
    this.rawToolChars += contentChars(recorded.content);
    this.messages.push(recorded);
    const overSpent =
      usedChars >= BUDGET_DEFAULTS.conversationBudgetChars || rawChars > BUDGET_DEFAULTS.rawCeilingChars;
    const budgetCut = capped.capped && overSpent;
    return {
      budgetCut,
      condensed: capped.condensed,
      perResultCut: capped.capped && !budgetCut,
      removedChars: capped.originalChars - capped.keptChars,
    };
  }
}
