import { forEachReferenceSpan, type IsDocumentRead, isSingleToken } from "../rules/window-references";
import type { Message } from "../types";
import { PositionLists } from "./position-lists";
import type { ResultFacts } from "./result-facts";

/** The first two chars (code units) and the length of `text[start, end)`, as one number. */
// Stryker disable next-line BlockStatement: equivalent — the shape only prefilters an exact lookup
function shapeOf(text: string, start: number, end: number): number {
  const length = end - start;
  // Stryker disable next-line ConditionalExpression,EqualityOperator: equivalent — keys and tokens share it
  const first = length > 0 ? text.charCodeAt(start) : 0;
  const second = length > 1 ? text.charCodeAt(start + 1) : 0;
  // Stryker disable next-line ArithmeticOperator,MethodExpression: equivalent — keys and tokens share it
  return (first * 128 + (second & 127)) * 4096 + Math.min(length, 4095);
}

/**
 * What the keep-rules need of a growing thread's results to decide any recency window
 * quickly: counts of results and of results a window-independent rule keeps, before each
 * position; results by provenance key and by source; and, per window message, the
 * results before it whose key it names.
 */
export class KeepIndex {
  /** Per position p, results before p; and results before p a window-independent keep-rule keeps. */
  private readonly resultCounts: number[] = [0];
  private readonly keptCounts: number[] = [0];
  private readonly byKey = new PositionLists();
  /** The first two chars and the length of every one-token key: a token of another shape is no key. */
  private readonly keyShapes = new Set<number>();
  private readonly bySource = new PositionLists();
  /** Results with a key that is not one token (looked for in the window's text). */
  // Stryker disable next-line ArrayDeclaration: equivalent — no result position, no mention
  readonly oddKeyResults: number[] = [];
  private readonly mentions: (readonly number[] | undefined)[] = [];

  /** `isDocumentRead` tells the window's document reads, which refer to nothing, from its other calls. */
  constructor(readonly isDocumentRead: IsDocumentRead) {}

  /** Takes in the next position: a result's facts, or undefined for any other message. */
  add(index: number, facts: ResultFacts | undefined): void {
    const results = this.resultCounts[index] as number;
    const kept = this.keptCounts[index] as number;
    this.resultCounts.push(facts ? results + 1 : results);
    this.keptCounts.push(facts?.reason !== undefined ? kept + 1 : kept);
    if (!facts) return;
    // Stryker disable next-line BooleanLiteral: equivalent — one-token keys never match the window
    let odd = false;
    for (const key of facts.keys) {
      if (isSingleToken(key)) {
        this.byKey.add(key, index);
        this.keyShapes.add(shapeOf(key, 0, key.length));
      } else odd = true;
    }
    // Stryker disable next-line ConditionalExpression: equivalent — one-token keys never match the window
    if (odd) this.oddKeyResults.push(index);
    // Stryker disable next-line ConditionalExpression: equivalent — asked for defined sources only
    if (facts.source !== undefined) this.bySource.add(facts.source, index);
  }

  resultsBefore(position: number): number {
    return this.resultCounts[position] as number;
  }

  keptBefore(position: number): number {
    return this.keptCounts[position] as number;
  }

  /** The results of a source, in order. */
  sourceMembers(source: string): readonly number[] {
    return this.bySource.get(source);
  }

  /**
   * The results before window message `index` (`message`) with a one-token key among the
   * tokens it refers to (see {@link forEachReferenceSpan}), in order; computed once per message.
   */
  mentionedBy(index: number, message: Message): readonly number[] {
    let mentioned = this.mentions[index];
    // Stryker disable next-line ConditionalExpression: equivalent — a cache of the same results
    if (mentioned === undefined) {
      const found = new Set<number>();
      forEachReferenceSpan(message, this.isDocumentRead, (text, start, end) => {
        // Stryker disable next-line ConditionalExpression: equivalent — a prefilter before an exact lookup
        if (!this.keyShapes.has(shapeOf(text, start, end))) return;
        this.byKey.forEach(text.slice(start, end), (result) => {
          // Stryker disable next-line EqualityOperator: equivalent — a result is never its own mention
          if (result < index) found.add(result);
        });
      });
      mentioned = [...found].sort((a, b) => a - b);
      this.mentions[index] = mentioned;
    }
    return mentioned;
  }
}
