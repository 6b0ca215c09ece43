import type { ToolPolicy } from "../policy";
import type { ToolMessage } from "../types";
import type { IndexedThread } from "./indexed-thread";
import { InlineIndex } from "./inline-index";
import { KeepIndex } from "./keep-index";
import { type ResultFacts, readResultFacts } from "./result-facts";

/**
 * What assembly knows of a thread's tool results under one tool policy (and `read_original` setting), extended by new
 * messages only: each result's facts, and the indexes the keep-rules and inline cleaning
 * decide from. Valid while the thread pairs every result with the same call as when the
 * facts were read (`pairingVersion`).
 */
export class ThreadFacts {
  readonly pairingVersion: number;
  /** Positions taken in so far. */
  length = 0;
  /** Positions of the tool results, in order. */
  readonly results: number[] = [];
  private readonly facts: (ResultFacts | undefined)[] = [];
  readonly keep: KeepIndex;
  readonly inline: InlineIndex;

  constructor(
    readonly thread: IndexedThread,
    readonly policy: ToolPolicy,
    /** The `read_original` tool's name when it is enabled (the stand-ins name its call). */
    readonly readOriginal?: string,
  ) {
    this.pairingVersion = thread.pairingVersion;
    this.keep = new KeepIndex((toolName) => policy.ruleFor(toolName).kind === "document-read");
    this.inline = new InlineIndex(thread, policy, (index) => this.facts[index], readOriginal);
  }

  /** Whether these facts still hold for the thread (no result pairs with another call since). */
  get current(): boolean {
    return this.pairingVersion === this.thread.pairingVersion;
  }

  /** Takes in the thread's messages not taken in yet. */
  extend(): void {
    const { messages, calls } = this.thread;
    for (let index = this.length; index < messages.length; index++) {
      const message = messages[index];
      const facts =
        message?.role === "tool"
          ? readResultFacts(message, calls.callAt(index), calls.callArgsJsonAt(index), this.policy)
          : undefined;
      this.facts.push(facts);
      this.keep.add(index, facts);
      if (facts) {
        this.results.push(index);
        this.inline.add(index, facts);
      }
    }
    this.length = messages.length;
  }

  /** The facts of the tool result at `index`; undefined for other messages. */
  at(index: number): ResultFacts | undefined {
    return this.facts[index];
  }

  message(index: number): ToolMessage {
    return this.thread.messages[index] as ToolMessage;
  }
}
