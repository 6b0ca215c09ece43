/**
 * Reads the messages of a thread file's JSON text chunk by chunk, parsing one message at a
 * time, so a large file is never held whole in memory: only the messages it yields and the
 * message being read. It knows the two layouts of a thread file, a bare array
 * (`[ ... ]`) and an object with a `messages` array (`{ "messages": [ ... ] }`, other keys
 * parsed and ignored). Anything else (another layout, a syntax error) ends the split with
 * `undefined`: the caller then parses the whole text, which names the error's position.
 */

/** What a split found: the messages, and whether they came wrapped in `{ "messages": … }`. */
export interface SplitThread {
  wrapped: boolean;
  messages: unknown[];
}

type Expect =
  | "top"
  | "keyOrEnd"
  | "key"
  | "colon"
  | "memberValue"
  | "memberCommaOrEnd"
  | "elementOrEnd"
  | "element"
  | "elementCommaOrEnd"
  | "end";

/** A value being captured: its text so far, and where the scan stands inside it. */
interface Capture {
  parts: string[];
  /** Open brackets and braces; 0 for a string or a scalar. */
  depth: number;
  inString: boolean;
  escaped: boolean;
  /** A number or literal: ends at the first delimiter. */
  scalar: boolean;
  /** Where the parsed value goes. */
  target: "key" | "member" | "element";
}

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const SCALAR_END = /[\s,\]}]/;
/** The chars that matter inside a string: its end, or an escape. */
const STRING_SPECIAL = /["\\]/g;

class Failed extends Error {}

function fail(): never {
  throw new Failed();
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fail();
  }
}

class MessageSplitter {
  private expect: Expect = "top";
  private wrapped = false;
  private sawMessages = false;
  private key = "";
  private messages: unknown[] = [];
  private capture: Capture | undefined;

  /** Scans one chunk of text; the chunks in order make the whole file. */
  write(chunk: string): void {
    let index = 0;
    while (index < chunk.length) {
      if (this.capture) {
        index = this.continueCapture(chunk, index);
        continue;
      }
      const char = chunk[index] as string;
      if (WHITESPACE.has(char)) {
        index++;
        continue;
      }
      this.structural(char);
      // A value's first char starts its capture, which consumes it.
      if (!this.capture) index++;
    }
  }

  /** The messages, once the text has ended; `undefined` unless it was one of the two layouts. */
  end(): SplitThread | undefined {
    if (this.capture?.scalar) this.finishCapture(this.capture.parts.join(""));
    if (this.expect !== "end" || this.capture || !this.sawMessages) return undefined;
    return { wrapped: this.wrapped, messages: this.messages };
  }

  private structural(char: string): void {
    switch (this.expect) {
      case "top":
        if (char === "[") {
          this.sawMessages = true;
          this.expect = "elementOrEnd";
        } else if (char === "{") {
          this.wrapped = true;
          this.expect = "keyOrEnd";
        } else fail();
        return;
      case "keyOrEnd":
      case "key":
        if (char === "}" && this.expect === "keyOrEnd") this.expect = "end";
        else if (char === '"') this.startCapture("key", char);
        else fail();
        return;
      case "colon":
        if (char !== ":") fail();
        this.expect = "memberValue";
        return;
      case "memberValue":
        if (this.key === "messages") {
          // `messages` must be an array; the last `messages` key wins, as in JSON.parse.
          if (char !== "[") fail();
          this.sawMessages = true;
          this.messages = [];
          this.expect = "elementOrEnd";
        } else this.startCapture("member", char);
        return;
      case "memberCommaOrEnd":
        if (char === ",") this.expect = "key";
        else if (char === "}") this.expect = "end";
        else fail();
        return;
      case "elementOrEnd":
      case "element":
        if (char === "]" && this.expect === "elementOrEnd") this.closeArray();
        else this.startCapture("element", char);
        return;
      case "elementCommaOrEnd":
        if (char === ",") this.expect = "element";
        else if (char === "]") this.closeArray();
        else fail();
        return;
      default:
        fail();
    }
  }

  private closeArray(): void {
    this.expect = this.wrapped ? "memberCommaOrEnd" : "end";
  }

  private startCapture(target: Capture["target"], char: string): void {
    if (char === "]" || char === "}" || char === "," || char === ":") fail();
    const container = char === "{" || char === "[";
    this.capture = {
      parts: [],
      depth: 0,
      inString: false,
      escaped: false,
      scalar: !container && char !== '"',
      target,
    };
  }

  /** Advances the capture through `chunk` from `start`; returns where the scan goes on. */
  private continueCapture(chunk: string, start: number): number {
    const capture = this.capture as Capture;
    let index = start;
    if (capture.scalar) {
      const rest = chunk.slice(start).search(SCALAR_END);
      if (rest < 0) {
        capture.parts.push(chunk.slice(start));
        return chunk.length;
      }
      capture.parts.push(chunk.slice(start, start + rest));
      this.finishCapture(capture.parts.join(""));
      return start + rest;
    }
    while (index < chunk.length) {
      if (capture.inString) {
        if (capture.escaped) {
          capture.escaped = false;
          index++;
          continue;
        }
        // Jump to the next quote or backslash: a long string is scanned in one search.
        STRING_SPECIAL.lastIndex = index;
        const special = STRING_SPECIAL.exec(chunk);
        if (special === null) {
          index = chunk.length;
          break;
        }
        index = special.index + 1;
        if (special[0] === "\\") {
          capture.escaped = true;
          continue;
        }
        capture.inString = false;
        if (capture.depth === 0) return this.completeAt(chunk, start, index);
        continue;
      }
      const char = chunk[index] as string;
      index++;
      if (char === '"') capture.inString = true;
      else if (char === "{" || char === "[") capture.depth++;
      else if (char === "}" || char === "]") {
        capture.depth--;
        if (capture.depth === 0) return this.completeAt(chunk, start, index);
      }
    }
    capture.parts.push(chunk.slice(start, index));
    return index;
  }

  private completeAt(chunk: string, start: number, end: number): number {
    const capture = this.capture as Capture;
    capture.parts.push(chunk.slice(start, end));
    this.finishCapture(capture.parts.join(""));
    return end;
  }

  private finishCapture(text: string): void {
    const target = (this.capture as Capture).target;
    this.capture = undefined;
    const value = parse(text);
    if (target === "key") {
      this.key = value as string;
      this.expect = "colon";
    } else if (target === "member") {
      this.expect = "memberCommaOrEnd";
    } else {
      this.messages.push(value);
      this.expect = "elementCommaOrEnd";
    }
  }
}

/**
 * Splits a thread file's JSON text, given in chunks, into its messages.
 *
 * @returns the messages and the layout, or `undefined` when the text is not one of the two
 *   layouts or is not valid JSON (parse it whole for the error and its position).
 */
export async function splitThreadMessages(chunks: AsyncIterable<string>): Promise<SplitThread | undefined> {
  const splitter = new MessageSplitter();
  try {
    for await (const chunk of chunks) splitter.write(chunk);
    return splitter.end();
  } catch (error) {
    if (error instanceof Failed) return undefined;
    throw error;
  }
}
