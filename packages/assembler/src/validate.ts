import { InvalidOptionError, InvalidThreadError } from "./errors";
import type { Message } from "./types";

const ROLES = new Set(["system", "user", "assistant", "tool"]);

/** Deeper than this, recursive JSON serializers (canonical JSON, the hash) overflow the stack. */
const MAX_JSON_DEPTH = 1_000;

/** A short description of a bad value, for error messages: `null`, `an array`, `the string "…"`, `a number`. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (value === undefined) return "undefined";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/** Throws an {@link InvalidThreadError} naming the message index and the field at fault. */
export function failAt(index: number, field: string, problem: string): never {
  throw new InvalidThreadError(`messages[${index}].${field} ${problem}`, { index, field });
}

/** A plain object (not null, not an array). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** What is wrong with a count that must be a safe integer of at least `minimum` (0 or 1); undefined when nothing is. */
export function integerProblem(value: unknown, minimum: 0 | 1 = 1): string | undefined {
  if (typeof value === "number" && Number.isSafeInteger(value) && value >= minimum) return undefined;
  return minimum === 0 ? "must be a non-negative integer" : "must be a positive integer";
}

/**
 * `value` when it is a safe integer of at least `minimum`.
 * @throws {InvalidOptionError} `<field>: must be a positive integer, got <value>`.
 */
export function checkInteger(value: number, field: string, minimum: 0 | 1 = 1): number {
  const problem = integerProblem(value, minimum);
  if (problem) throw new InvalidOptionError(`${field}: ${problem}, got ${String(value)}`, field);
  return value;
}

/**
 * Whether {@link validateJsonData} accepts `value` (`ancestors`: the objects enclosing it),
 * without building the path of every value it visits: this runs for every call's args and
 * every block of every thread, and the path is needed only to name a problem. Its depth is
 * bounded by {@link MAX_JSON_DEPTH}, so the recursion cannot overflow the stack.
 */
function isJsonData(value: unknown, ancestors: object[]): boolean {
  if (value === null) return true;
  const type = typeof value;
  if (type === "string" || type === "number" || type === "boolean" || type === "undefined") return true;
  if (type !== "object") return false;
  const item = value as object;
  if (ancestors.length >= MAX_JSON_DEPTH || ancestors.includes(item)) return false;
  ancestors.push(item);
  let valid = true;
  if (Array.isArray(item)) {
    for (let position = 0; valid && position < item.length; position++) {
      // A hole is skipped, as `forEach` skips it.
      if (position in item) valid = isJsonData(item[position], ancestors);
    }
  } else {
    const record = item as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      valid = isJsonData(record[key], ancestors);
      if (!valid) break;
    }
  }
  ancestors.pop();
  return valid;
}

/**
 * Checks that `value` is JSON data, which canonical JSON, hashing and serialization take:
 * null, booleans, numbers, strings, arrays and plain objects (an `undefined` field is
 * dropped), without a cycle and at most {@link MAX_JSON_DEPTH} levels deep. Iterative, so
 * it never overflows the stack itself.
 */
function validateJsonData(index: number, field: string, value: unknown): void {
  if (isJsonData(value, [])) return;
  const pending: { value: unknown; path: string; ancestors: readonly object[] }[] = [
    { value, path: field, ancestors: [] },
  ];
  while (pending.length > 0) {
    const { value: item, path, ancestors } = pending.pop() as (typeof pending)[number];
    if (item === null || ["string", "number", "boolean", "undefined"].includes(typeof item)) continue;
    if (typeof item !== "object") failAt(index, path, `must be JSON data, got ${describeValue(item)}`);
    if (ancestors.includes(item))
      failAt(index, path, "refers back to an enclosing value (a cycle), which JSON cannot hold");
    if (ancestors.length >= MAX_JSON_DEPTH) failAt(index, path, `nests deeper than ${MAX_JSON_DEPTH} levels`);
    const inside = [...ancestors, item];
    if (Array.isArray(item)) {
      item.forEach((entry, position) => {
        pending.push({ value: entry, path: `${path}[${position}]`, ancestors: inside });
      });
    } else {
      for (const [key, entry] of Object.entries(item)) {
        const step = /^[A-Za-z_$][\w$]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
        pending.push({ value: entry, path: `${path}${step}`, ancestors: inside });
      }
    }
  }
}

function validateContent(index: number, content: unknown): void {
  if (typeof content === "string") return;
  if (!Array.isArray(content)) {
    failAt(index, "content", `must be a string or an array of content blocks, got ${describeValue(content)}`);
  }
  for (let blockIndex = 0; blockIndex < content.length; blockIndex++) {
    const block: unknown = content[blockIndex];
    if (block === null || typeof block !== "object" || Array.isArray(block)) {
      failAt(index, `content[${blockIndex}]`, `must be a content block object, got ${describeValue(block)}`);
    }
    validateJsonData(index, `content[${blockIndex}]`, block);
  }
}

function validateToolCalls(index: number, toolCalls: unknown): void {
  if (toolCalls === undefined) return;
  if (!Array.isArray(toolCalls))
    failAt(index, "toolCalls", `must be an array, got ${describeValue(toolCalls)}`);
  for (let callIndex = 0; callIndex < toolCalls.length; callIndex++) {
    const call: unknown = toolCalls[callIndex];
    // The field names are built only on failure: this runs for every call of every thread.
    const field = (suffix = "") => `toolCalls[${callIndex}]${suffix}`;
    if (call === null || typeof call !== "object")
      failAt(index, field(), `must be an object, got ${describeValue(call)}`);
    const { id, name, args, issuedBy } = call as Record<string, unknown>;
    if (typeof id !== "string") failAt(index, field(".id"), `must be a string, got ${describeValue(id)}`);
    if (typeof name !== "string")
      failAt(index, field(".name"), `must be a string, got ${describeValue(name)}`);
    if (issuedBy !== undefined && typeof issuedBy !== "string")
      failAt(index, field(".issuedBy"), `must be a string or absent, got ${describeValue(issuedBy)}`);
    if (args === null || typeof args !== "object" || Array.isArray(args)) {
      failAt(index, field(".args"), `must be an object, got ${describeValue(args)}`);
    }
    validateJsonData(index, field(".args"), args);
  }
}

/**
 * Checks one message of a thread (see {@link validateThread}).
 *
 * @throws {InvalidThreadError} naming the message index and the field at fault.
 */
export function validateMessage(message: unknown, index: number): asserts message is Message {
  if (message === null || typeof message !== "object" || Array.isArray(message)) {
    throw new InvalidThreadError(`messages[${index}] must be an object, got ${describeValue(message)}`, {
      index,
    });
  }
  const record = message as Record<string, unknown>;
  if (typeof record.role !== "string" || !ROLES.has(record.role)) {
    failAt(index, "role", `must be one of system, user, assistant, tool; got ${describeValue(record.role)}`);
  }
  validateContent(index, record.content);
  if (record.role === "assistant") validateToolCalls(index, record.toolCalls);
  if (record.role === "tool") validateToolFields(index, record);
}

function validateToolFields(index: number, record: Record<string, unknown>): void {
  if (typeof record.toolCallId !== "string") {
    failAt(index, "toolCallId", `must be a string (may be ""), got ${describeValue(record.toolCallId)}`);
  }
  if (typeof record.toolName !== "string") {
    failAt(index, "toolName", `must be a string, got ${describeValue(record.toolName)}`);
  }
  if (record.status !== undefined && record.status !== "error" && record.status !== "success") {
    failAt(index, "status", `must be "error", "success" or absent, got ${describeValue(record.status)}`);
  }
}

/** Throws unless `messages` is an array (its messages are checked one by one by {@link validateMessage}). */
export function validateThreadArray(messages: unknown): asserts messages is readonly unknown[] {
  if (!Array.isArray(messages)) {
    throw new InvalidThreadError(`messages must be an array, got ${describeValue(messages)}`, {
      field: "messages",
    });
  }
}

/**
 * Checks that `messages` is a well-formed neutral thread (the message model of `types.ts`).
 * Odd but valid input (unknown tools, block or empty content, "" tool call ids) passes.
 * Tool call args and content blocks must be JSON data (no BigInt, function or symbol, no
 * cycle, at most 1,000 levels deep), what hashing and serialization take.
 *
 * @throws {InvalidThreadError} naming the message index and the field at fault.
 */
export function validateThread(messages: unknown): asserts messages is readonly Message[] {
  validateThreadArray(messages);
  for (let index = 0; index < messages.length; index++) validateMessage(messages[index], index);
}
