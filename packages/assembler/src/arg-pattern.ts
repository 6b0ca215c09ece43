/**
 * The patterns of the tool rules' `protectedArgs` (docs/architecture.md#rollout-controls):
 * regular expressions of a subset that a finite automaton runs in time linear in the
 * value it reads, so no pattern an operator stores and no argument a model writes can
 * stall an assembly or a worker job. JavaScript's own `RegExp` backtracks, and a pattern
 * such as `^([a-z0-9]+-?)+-pinned$` takes tens of seconds on a 37-char argument there;
 * here it takes about a thousand steps.
 *
 * The subset is JavaScript's syntax without flags, as `new RegExp(source).test(value)`
 * reads it, less what no automaton can run in linear time or what reads ambiguously:
 * literal characters, `.`, classes (`[a-z_]`, `[^/]`), the escapes `\d \D \w \W \s \S`,
 * `\t \n \v \f \r`, `\xHH`, `\uHHHH` and an escaped punctuation character, groups
 * (`(…)`, `(?:…)`, `(?<name>…)`), alternation `|`, the quantifiers `* + ? {n} {n,} {n,m}`
 * (lazy or not, which matches the same values), and the assertions `^ $ \b \B`. Refused:
 * backreferences (`\1`, `\k<name>`), lookarounds (`(?=…)`, `(?!…)`, `(?<=…)`, `(?<!…)`),
 * other escapes of a letter or digit, a class range with a class escape at one end
 * (`[\w-.]`), and a `{`, `}` or `]` that is not escaped.
 */

/** Limits of a `protectedArgs` pattern and of what it reads. */
export const ARG_PATTERN_LIMITS = {
  /** Chars of an argument's value a pattern reads, from its start: a match lies within them. */
  valueChars: 4_096,
  /** Chars of a pattern's source. */
  sourceChars: 1_000,
  /** Instructions of a pattern's automaton (a counted repetition repeats its atom's). */
  programSize: 256,
  /** Instructions of the automata of one rule set's patterns together. */
  rulesProgramSize: 1_024,
} as const;

/** A compiled pattern. */
export interface ArgPattern {
  /** The pattern as given. */
  readonly source: string;
  /** Instructions of its automaton: a match visits each at most twice per char it reads. */
  readonly programSize: number;
  /**
   * Whether the pattern matches within the first {@link ARG_PATTERN_LIMITS}.valueChars
   * chars of `value` (`$` matches at the value's own end only). `counter.steps` counts
   * the instructions visited: at most 2 × programSize per char read, plus as many once.
   */
  test(value: string, counter?: { steps: number }): boolean;
}

/** A set of UTF-16 code units: sorted, disjoint, non-adjacent inclusive ranges [lo, hi, lo, hi, …]. */
type CharSet = readonly number[];

type Node =
  | { type: "set"; set: CharSet }
  | { type: "assert"; kind: Assertion }
  | { type: "sequence"; items: Node[] }
  | { type: "choice"; items: Node[] }
  | { type: "repeat"; item: Node; min: number; max: number };

type Assertion = "start" | "end" | "boundary" | "notBoundary";

const MAX_CODE_UNIT = 0xffff;

/** The union of `ranges` (pairs, in any order), normalized. */
function normalize(ranges: readonly number[]): CharSet {
  const pairs: [number, number][] = [];
  for (let index = 0; index < ranges.length; index += 2)
    pairs.push([ranges[index] as number, ranges[index + 1] as number]);
  pairs.sort((a, b) => a[0] - b[0]);
  const merged: number[] = [];
  for (const [low, high] of pairs) {
    const last = merged.length - 1;
    if (last > 0 && low <= (merged[last] as number) + 1)
      merged[last] = Math.max(merged[last] as number, high);
    else merged.push(low, high);
  }
  return merged;
}

function complement(set: CharSet): CharSet {
  const result: number[] = [];
  let next = 0;
  for (let index = 0; index < set.length; index += 2) {
    const low = set[index] as number;
    if (low > next) result.push(next, low - 1);
    next = (set[index + 1] as number) + 1;
  }
  if (next <= MAX_CODE_UNIT) result.push(next, MAX_CODE_UNIT);
  return result;
}

function contains(set: CharSet, code: number): boolean {
  let low = 0;
  let high = set.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (code < (set[2 * middle] as number)) high = middle - 1;
    else if (code > (set[2 * middle + 1] as number)) low = middle + 1;
    else return true;
  }
  return false;
}

const DIGITS: CharSet = [0x30, 0x39];
const WORD: CharSet = normalize([0x30, 0x39, 0x41, 0x5a, 0x5f, 0x5f, 0x61, 0x7a]);
/** JavaScript's WhiteSpace and LineTerminator, what `\s` matches. */
const SPACE: CharSet = normalize([
  0x09, 0x0d, 0x20, 0x20, 0xa0, 0xa0, 0x1680, 0x1680, 0x2000, 0x200a, 0x2028, 0x2029, 0x202f, 0x202f, 0x205f,
  0x205f, 0x3000, 0x3000, 0xfeff, 0xfeff,
]);
/** What `.` matches without the `s` flag: anything but a line terminator. */
const DOT: CharSet = complement(normalize([0x0a, 0x0a, 0x0d, 0x0d, 0x2028, 0x2029]));
const CLASS_ESCAPES: Readonly<Record<string, CharSet>> = {
  d: DIGITS,
  D: complement(DIGITS),
  w: WORD,
  W: complement(WORD),
  s: SPACE,
  S: complement(SPACE),
};
const CONTROL_ESCAPES: Readonly<Record<string, number>> = { t: 0x09, n: 0x0a, v: 0x0b, f: 0x0c, r: 0x0d };
const HEX = /^[0-9A-Fa-f]+$/;

/** Why a source is refused, with where. */
class Refusal extends Error {}

/** A recursive-descent parser of the subset (see the module's comment). */
class Parser {
  private at = 0;

  constructor(private readonly source: string) {}

  parse(): Node {
    const node = this.choice();
    if (this.at < this.source.length) this.refuse(`an unmatched ")" at ${this.at}`);
    return node;
  }

  private refuse(problem: string): never {
    throw new Refusal(problem);
  }

  private peek(offset = 0): string | undefined {
    return this.source[this.at + offset];
  }

  private choice(): Node {
    const items = [this.sequence()];
    while (this.peek() === "|") {
      this.at++;
      items.push(this.sequence());
    }
    return items.length === 1 ? (items[0] as Node) : { type: "choice", items };
  }

  private sequence(): Node {
    const items: Node[] = [];
    for (let next = this.peek(); next !== undefined && next !== "|" && next !== ")"; next = this.peek()) {
      const start = this.at;
      const atom = this.atom();
      const bare = atom.type === "assert" && this.source[start] !== "(";
      items.push(bare ? this.noQuantifier(atom) : this.quantified(atom, start));
    }
    return items.length === 1 ? (items[0] as Node) : { type: "sequence", items };
  }

  private noQuantifier(atom: Node): Node {
    const next = this.peek();
    if (next === "*" || next === "+" || next === "?" || next === "{")
      this.refuse(`a quantifier after an assertion at ${this.at}`);
    return atom;
  }

  private quantified(atom: Node, start: number): Node {
    const next = this.peek();
    let min: number;
    let max: number;
    if (next === "*" || next === "+" || next === "?") {
      this.at++;
      [min, max] = next === "*" ? [0, Infinity] : next === "+" ? [1, Infinity] : [0, 1];
    } else if (next === "{") {
      const counted = /^\{(\d+)(,(\d*))?\}/.exec(this.source.slice(this.at));
      if (!counted) this.refuse(`a "{" at ${this.at} that is no {n}, {n,} or {n,m} (escape it as \\{)`);
      this.at += counted[0].length;
      min = Number(counted[1]);
      max = counted[2] === undefined ? min : counted[3] === "" ? Infinity : Number(counted[3]);
      if (max < min) this.refuse(`the repetition at ${start} has its bounds out of order`);
    } else return atom;
    if (this.peek() === "?") this.at++;
    const after = this.peek();
    if (after === "*" || after === "+" || after === "?" || after === "{")
      this.refuse(`a quantifier of a quantifier at ${this.at}`);
    return { type: "repeat", item: atom, min, max };
  }

  private atom(): Node {
    const char = this.peek() as string;
    const at = this.at;
    this.at++;
    switch (char) {
      case "^":
        return { type: "assert", kind: "start" };
      case "$":
        return { type: "assert", kind: "end" };
      case ".":
        return { type: "set", set: DOT };
      case "(":
        return this.group(at);
      case "[":
        return { type: "set", set: this.charClass(at) };
      case "\\":
        return this.escape(at);
      case "*":
      case "+":
      case "?":
        return this.refuse(`nothing to repeat at ${at}`);
      case "{":
      case "}":
      case "]":
        return this.refuse(`an unescaped "${char}" at ${at} (escape it as \\${char})`);
      default:
        return { type: "set", set: [char.charCodeAt(0), char.charCodeAt(0)] };
    }
  }

  private group(at: number): Node {
    if (this.peek() === "?") {
      const rest = this.source.slice(this.at, this.at + 3);
      if (rest.startsWith("?:")) this.at += 2;
      else if (rest.startsWith("?=") || rest.startsWith("?!") || rest === "?<=" || rest === "?<!")
        this.refuse(`a lookaround at ${at}, which no linear-time matcher runs`);
      else {
        const named = /^\?<[A-Za-z_$][\w$]*>/.exec(this.source.slice(this.at));
        if (!named) this.refuse(`an unsupported group "(${rest}" at ${at}`);
        this.at += named[0].length;
      }
    }
    const inner = this.choice();
    if (this.peek() !== ")") this.refuse(`an unclosed group at ${at}`);
    this.at++;
    return inner;
  }

  /** The escape after the `\` at `at`: one char, a class of chars, or an assertion. */
  private escape(at: number): Node {
    const char = this.peek();
    if (char === "b" || char === "B") {
      this.at++;
      return { type: "assert", kind: char === "b" ? "boundary" : "notBoundary" };
    }
    return { type: "set", set: this.escapedSet(at, false) };
  }

  /** The chars of the escape after the `\` at `at` (in a class, `\b` is a backspace). */
  private escapedSet(at: number, inClass: boolean): CharSet {
    const char = this.peek();
    if (char === undefined) this.refuse(`a "\\" at the end`);
    this.at++;
    const classEscape = CLASS_ESCAPES[char];
    if (classEscape) return classEscape;
    const control = inClass && char === "b" ? 0x08 : CONTROL_ESCAPES[char];
    if (control !== undefined) return [control, control];
    if (char === "x" || char === "u") {
      const digits = this.source.slice(this.at, this.at + (char === "x" ? 2 : 4));
      if (digits.length !== (char === "x" ? 2 : 4) || !HEX.test(digits))
        this.refuse(`"\\${char}" at ${at} without ${char === "x" ? 2 : 4} hex digits`);
      this.at += digits.length;
      const code = Number.parseInt(digits, 16);
      return [code, code];
    }
    if (/[0-9]/.test(char)) this.refuse(`a backreference or octal escape "\\${char}" at ${at}`);
    if (char === "k") this.refuse(`a backreference "\\k" at ${at}`);
    if (/[A-Za-z]/.test(char)) this.refuse(`an unsupported escape "\\${char}" at ${at}`);
    const code = char.charCodeAt(0);
    return [code, code];
  }

  /** The class opened by the `[` at `at`. */
  private charClass(at: number): CharSet {
    let negated = false;
    if (this.peek() === "^") {
      negated = true;
      this.at++;
    }
    const ranges: number[] = [];
    for (;;) {
      const char = this.peek();
      if (char === undefined) this.refuse(`an unclosed class at ${at}`);
      if (char === "]") break;
      const low = this.classAtom();
      if (this.peek() === "-" && this.peek(1) !== "]" && this.peek(1) !== undefined) {
        const dash = this.at;
        this.at++;
        const high = this.classAtom();
        if (!isSingle(low) || !isSingle(high))
          this.refuse(`a range at ${dash} between a class escape and a char`);
        if ((low[0] as number) > (high[0] as number)) this.refuse(`a range out of order at ${dash}`);
        ranges.push(low[0] as number, high[0] as number);
      } else ranges.push(...low);
    }
    this.at++;
    const set = normalize(ranges);
    return negated ? complement(set) : set;
  }

  private classAtom(): CharSet {
    const at = this.at;
    const char = this.peek() as string;
    this.at++;
    if (char === "\\") return this.escapedSet(at, true);
    return [char.charCodeAt(0), char.charCodeAt(0)];
  }
}

function isSingle(set: CharSet): boolean {
  return set.length === 2 && set[0] === set[1];
}

/** Instructions of the automaton (a Thompson NFA), each at one index of the program. */
const CHAR = 0;
const SPLIT = 1;
const JUMP = 2;
const ASSERT = 3;
const MATCH = 4;

/** The program as it is emitted. */
interface Emitted {
  readonly op: number[];
  /** CHAR, ASSERT: the next instruction; SPLIT, JUMP: the first target. */
  readonly first: number[];
  /** SPLIT: the second target. */
  readonly second: number[];
  /** CHAR: its set; ASSERT: its kind. */
  readonly data: (CharSet | Assertion | undefined)[];
}

/** The instructions `node` compiles to (saturating far above any limit). */
function sizeOf(node: Node): number {
  switch (node.type) {
    case "set":
    case "assert":
      return 1;
    case "sequence":
      return node.items.reduce((sum, item) => sum + sizeOf(item), 0);
    case "choice":
      return node.items.reduce((sum, item) => sum + sizeOf(item), 0) + 2 * (node.items.length - 1);
    case "repeat": {
      const item = sizeOf(node.item);
      const optional = node.max === Infinity ? item + 2 : (node.max - node.min) * (item + 1);
      return Math.min(Number.MAX_SAFE_INTEGER, node.min * item + optional);
    }
  }
}

function emit(program: Emitted, op: number, data?: CharSet | Assertion): number {
  program.op.push(op);
  program.first.push(-1);
  program.second.push(-1);
  program.data.push(data);
  return program.op.length - 1;
}

/** Appends `node`'s instructions; what continues past the node goes to the next instruction emitted after it. */
function compile(program: Emitted, node: Node): void {
  const next = () => program.op.length;
  switch (node.type) {
    case "set":
    case "assert": {
      const at = emit(
        program,
        node.type === "set" ? CHAR : ASSERT,
        node.type === "set" ? node.set : node.kind,
      );
      program.first[at] = at + 1;
      return;
    }
    case "sequence":
      for (const item of node.items) compile(program, item);
      return;
    case "choice": {
      const jumps: number[] = [];
      node.items.forEach((item, position) => {
        if (position === node.items.length - 1) {
          compile(program, item);
          return;
        }
        const split = emit(program, SPLIT);
        program.first[split] = split + 1;
        compile(program, item);
        jumps.push(emit(program, JUMP));
        program.second[split] = next();
      });
      for (const jump of jumps) program.first[jump] = next();
      return;
    }
    case "repeat": {
      for (let count = 0; count < node.min; count++) compile(program, node.item);
      if (node.max === Infinity) {
        const split = emit(program, SPLIT);
        program.first[split] = split + 1;
        compile(program, node.item);
        const jump = emit(program, JUMP);
        program.first[jump] = split;
        program.second[split] = next();
        return;
      }
      const splits: number[] = [];
      for (let count = node.min; count < node.max; count++) {
        const split = emit(program, SPLIT);
        program.first[split] = split + 1;
        splits.push(split);
        compile(program, node.item);
      }
      for (const split of splits) program.second[split] = next();
      return;
    }
  }
}

/** The program as it runs: typed arrays, and per CHAR instruction a table of the ASCII chars it takes. */
interface Program {
  readonly size: number;
  readonly op: Uint8Array;
  readonly first: Int32Array;
  readonly second: Int32Array;
  /** 128 entries per instruction: 1 where a CHAR instruction takes that ASCII char. */
  readonly ascii: Uint8Array;
  readonly data: readonly (CharSet | Assertion | undefined)[];
}

function finish(emitted: Emitted): Program {
  const size = emitted.op.length;
  const ascii = new Uint8Array(size * 128);
  emitted.data.forEach((data, at) => {
    if (emitted.op[at] !== CHAR) return;
    for (let code = 0; code < 128; code++) ascii[at * 128 + code] = contains(data as CharSet, code) ? 1 : 0;
  });
  return {
    size,
    op: Uint8Array.from(emitted.op),
    first: Int32Array.from(emitted.first),
    second: Int32Array.from(emitted.second),
    ascii,
    data: emitted.data,
  };
}

function isWordAt(value: string, position: number): boolean {
  return position >= 0 && position < value.length && contains(WORD, value.charCodeAt(position));
}

function holds(kind: Assertion, value: string, position: number): boolean {
  switch (kind) {
    case "start":
      return position === 0;
    case "end":
      return position === value.length;
    case "boundary":
      return isWordAt(value, position - 1) !== isWordAt(value, position);
    case "notBoundary":
      return isWordAt(value, position - 1) === isWordAt(value, position);
  }
}

/**
 * Runs `program` over `value` as an unanchored search (as `RegExp.prototype.test` does),
 * keeping the set of CHAR instructions alive at each position: each instruction is visited
 * at most once per position, so the work is at most 2 × size per char read, plus 2 × size.
 */
function run(program: Program, value: string, counter: { steps: number } | undefined): boolean {
  const { size, op, first, second, ascii, data } = program;
  const end = Math.min(value.length, ARG_PATTERN_LIMITS.valueChars);
  const seen = new Int32Array(size).fill(-1);
  const stack = new Int32Array(2 * size + 1);
  let current = new Int32Array(size);
  let following = new Int32Array(size);
  let alive = 0;
  let next = 0;
  let steps = 0;
  /** Adds the CHAR instructions reached from `start` without reading a char at `position` to `following`; true on a match. */
  const reach = (start: number, position: number): boolean => {
    let top = 0;
    stack[top++] = start;
    while (top > 0) {
      const at = stack[--top] as number;
      if (seen[at] === position) continue;
      seen[at] = position;
      steps++;
      switch (op[at]) {
        case CHAR:
          following[next++] = at;
          break;
        case MATCH:
          return true;
        case JUMP:
          stack[top++] = first[at] as number;
          break;
        case SPLIT:
          stack[top++] = second[at] as number;
          stack[top++] = first[at] as number;
          break;
        default:
          if (holds(data[at] as Assertion, value, position)) stack[top++] = first[at] as number;
      }
    }
    return false;
  };
  let matched = false;
  for (let position = 0; ; position++) {
    // `following` holds what the previous char led to; the search may also start here.
    matched = reach(0, position);
    [current, following] = [following, current];
    alive = next;
    next = 0;
    if (matched || position === end) break;
    const code = value.charCodeAt(position);
    for (let index = 0; index < alive && !matched; index++) {
      const at = current[index] as number;
      steps++;
      const takes = code < 128 ? ascii[at * 128 + code] === 1 : contains(data[at] as CharSet, code);
      if (takes) matched = reach(first[at] as number, position + 1);
    }
    if (matched) break;
  }
  if (counter) counter.steps += steps;
  return matched;
}

/**
 * Compiles a `protectedArgs` pattern, or says why it is refused: not valid JavaScript
 * regular-expression syntax, outside the subset (see the module's comment), or over
 * {@link ARG_PATTERN_LIMITS}.
 */
export function compileArgPattern(source: string): ArgPattern | { problem: string } {
  if (source.length > ARG_PATTERN_LIMITS.sourceChars)
    return { problem: `is longer than ${ARG_PATTERN_LIMITS.sourceChars} chars` };
  try {
    // Syntax only: the engine compiles the pattern and never runs it.
    new RegExp(source);
  } catch {
    return { problem: `is not a valid regular expression: ${source}` };
  }
  let node: Node;
  try {
    node = new Parser(source).parse();
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return {
      problem: `has ${error.message}: a protected-argument pattern is matched in linear time, so it takes no backreference, lookaround or ambiguous escape (docs/architecture.md#rollout-controls)`,
    };
  }
  const size = sizeOf(node) + 1;
  if (size > ARG_PATTERN_LIMITS.programSize)
    return {
      problem: `compiles to ${size > 1e9 ? "over a billion" : size} instructions, over the ${ARG_PATTERN_LIMITS.programSize} a protected-argument pattern may take (shorten it, or lower its counted repetitions)`,
    };
  const emitted: Emitted = { op: [], first: [], second: [], data: [] };
  compile(emitted, node);
  emit(emitted, MATCH);
  const program = finish(emitted);
  return Object.freeze({
    source,
    programSize: program.size,
    test: (value: string, counter?: { steps: number }) => run(program, value, counter),
  });
}
