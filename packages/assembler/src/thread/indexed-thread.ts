import { contentChars } from "../content";
import { hasNoteHeader, snippet } from "../contract/compaction-note";
import { canonicalJson, contentSha256 } from "../contract/hash";
import { type MessagePrint, matchesPrint, printOf } from "../contract/message-print";
import type { Message } from "../types";
import { validateMessage } from "../validate";
import { UnitIndex } from "./exchange-units";
import { CallIndex } from "./thread-index";

/**
 * What assembly knows of a thread's messages whatever the tool policy, kept for a growing
 * thread and extended by its new messages only: each message as it was taken in, its
 * chars, the call each result answers, the exchange units, and, computed when first
 * asked for, content hashes and note snippets. Messages are never changed.
 */
export class IndexedThread {
  readonly messages: Message[] = [];
  private readonly prints: MessagePrint[] = [];
  /** Per message, the chars it puts in the prompt (as `messageChars` counts them). */
  readonly chars: number[] = [];
  totalChars = 0;
  readonly calls = new CallIndex();
  readonly units = new UnitIndex();
  /** Per message, whether it opens with a note's header. */
  private readonly noteHeaders: boolean[] = [];
  private readonly hashes: (string | undefined)[] = [];
  private readonly blockKeys = new Map<number, string>();
  private readonly snippets = new Map<number, { maxChars: number; text: string }>();
  /** Bumped whenever a result pairs with another call than it did (see {@link CallIndex.append}). */
  pairingVersion = 0;

  get length(): number {
    return this.messages.length;
  }

  /** How many leading messages of `messages` are the very messages taken in, unchanged since. */
  matchLength(messages: readonly Message[]): number {
    const limit = Math.min(messages.length, this.messages.length);
    for (let index = 0; index < limit; index++) {
      const message = messages[index] as Message;
      if (message !== this.messages[index] || !matchesPrint(message, this.prints[index] as MessagePrint))
        return index;
    }
    return limit;
  }

  /**
   * Takes in `messages[this.length…]`, which must continue the messages taken in, each
   * validated before it is taken in.
   *
   * @throws {InvalidThreadError} naming the first bad message; those before it are taken in.
   */
  extend(messages: readonly unknown[]): void {
    const settledBefore = this.messages.length;
    for (let index = settledBefore; index < messages.length; index++) {
      const message = messages[index];
      validateMessage(message, index);
      this.messages.push(message);
      this.prints.push(printOf(message));
      if (!this.calls.append(message, settledBefore)) this.pairingVersion++;
      const chars = contentChars(message.content) + this.calls.callCharsAt(index);
      this.chars.push(chars);
      this.totalChars += chars;
      this.noteHeaders.push(hasNoteHeader(message));
      this.units.append(message);
    }
  }

  /** Whether the message at `index` is a note an earlier pass wrote, given the longest a note can be. */
  isNote(index: number, noteMaxChars: number): boolean {
    return this.noteHeaders[index] === true && (this.chars[index] as number) <= noteMaxChars;
  }

  /** {@link contentSha256} of the content at `index`. */
  hashAt(index: number): string {
    let hash = this.hashes[index];
    if (hash === undefined) {
      hash = contentSha256((this.messages[index] as Message).content);
      this.hashes[index] = hash;
    }
    return hash;
  }

  /**
   * What makes the content at `index` identical to another's: the string itself, or the
   * canonical JSON of blocks. Equal keys are equal hashes, without hashing.
   */
  contentKeyAt(index: number): string {
    const content = (this.messages[index] as Message).content;
    if (typeof content === "string") return content;
    let key = this.blockKeys.get(index);
    if (key === undefined) {
      key = canonicalJson(content);
      this.blockKeys.set(index, key);
    }
    return key;
  }

  /** The note snippet of the message at `index`. */
  snippetAt(index: number, maxChars: number): string {
    const cached = this.snippets.get(index);
    if (cached?.maxChars === maxChars) return cached.text;
    const text = snippet(this.messages[index] as Message, maxChars);
    this.snippets.set(index, { maxChars, text });
    return text;
  }
}
