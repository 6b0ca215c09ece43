/** Line and column (both 1-based) of an offset in a text. */
export interface TextPosition {
  line: number;
  column: number;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);
const HEX4 = /[0-9a-fA-F]{4}/y;
const LITERALS = ["true", "false", "null"] as const;

/** End offset of the string starting at `start` (a `"`), or the offset of its first error as `-(offset + 1)`. */
function scanString(text: string, start: number): number {
  for (let index = start + 1; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x22) return index + 1;
    if (code < 0x20) return -(index + 1);
    if (code === 0x5c) {
      const escaped = text[index + 1];
      if (escaped === "u") {
        HEX4.lastIndex = index + 2;
        if (!HEX4.test(text)) return -(index + 1);
        index += 5;
      } else if (escaped !== undefined && ESCAPES.has(escaped)) index += 1;
      else return -(index + 1);
    }
  }
  return -(text.length + 1);
}

type State = "value" | "firstValueOrEnd" | "key" | "firstKeyOrEnd" | "colon" | "afterValue";

/**
 * The offset of the first JSON syntax error in `text` (`text.length` for an unexpected end),
 * or -1 when `text` is valid JSON. Iterative, so deep nesting cannot overflow the stack;
 * used only after `JSON.parse` failed, whose messages do not always carry a position.
 */
export function jsonSyntaxErrorOffset(text: string): number {
  const stack: string[] = [];
  let state: State = "value";
  let index = 0;
  while (true) {
    while (index < text.length && " \t\n\r".includes(text[index] as string)) index++;
    if (index >= text.length) return stack.length === 0 && state === "afterValue" ? -1 : text.length;
    const char = text[index] as string;
    if (state === "afterValue") {
      const top = stack[stack.length - 1];
      if (top === undefined) return index;
      if (char === ",") state = top === "{" ? "key" : "value";
      else if ((char === "}" && top === "{") || (char === "]" && top === "[")) stack.pop();
      else return index;
      index++;
    } else if (state === "colon") {
      if (char !== ":") return index;
      state = "value";
      index++;
    } else if (state === "key" || state === "firstKeyOrEnd") {
      if (state === "firstKeyOrEnd" && char === "}") {
        stack.pop();
        state = "afterValue";
        index++;
        continue;
      }
      if (char !== '"') return index;
      const end = scanString(text, index);
      if (end < 0) return -end - 1;
      index = end;
      state = "colon";
    } else {
      if (state === "firstValueOrEnd" && char === "]") {
        stack.pop();
        state = "afterValue";
        index++;
        continue;
      }
      if (char === "{" || char === "[") {
        stack.push(char);
        state = char === "{" ? "firstKeyOrEnd" : "firstValueOrEnd";
        index++;
        continue;
      }
      if (char === '"') {
        const end = scanString(text, index);
        if (end < 0) return -end - 1;
        index = end;
      } else {
        NUMBER.lastIndex = index;
        const literal = LITERALS.find((word) => text.startsWith(word, index));
        if (literal) index += literal.length;
        else if (NUMBER.test(text)) index = NUMBER.lastIndex;
        else return index;
      }
      state = "afterValue";
    }
  }
}

/** The 1-based line and column of `offset` in `text` (`\n`, `\r\n` and `\r` end lines). */
export function textPosition(text: string, offset: number): TextPosition {
  let line = 1;
  let lineStart = 0;
  for (let index = 0; index < offset && index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === 0x0a || (code === 0x0d && text.charCodeAt(index + 1) !== 0x0a)) {
      line++;
      lineStart = index + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
