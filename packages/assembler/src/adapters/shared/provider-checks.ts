import { InvalidThreadError } from "../../errors";

/** A short description of a bad value, for error messages. */
export function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return typeof value === "string" ? `the string ${JSON.stringify(value.slice(0, 40))}` : `a ${typeof value}`;
}

/** Throws an {@link InvalidThreadError} naming the provider message index and the field at fault. */
export function failAt(index: number, field: string, problem: string): never {
  throw new InvalidThreadError(`messages[${index}].${field} ${problem}`, { index, field });
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Checks that `messages` is an array of objects; names the first index that is not one. */
export function checkMessageArray(messages: unknown): void {
  if (!Array.isArray(messages)) {
    throw new InvalidThreadError(`messages must be an array, got ${describeValue(messages)}`, {
      field: "messages",
    });
  }
  messages.forEach((message: unknown, index) => {
    if (!isRecord(message)) {
      throw new InvalidThreadError(`messages[${index}] must be an object, got ${describeValue(message)}`, {
        index,
      });
    }
  });
}

/** Tool-call arguments as the neutral model keeps them: an object as is, anything else under `input`. */
export function argsObject(input: unknown): Record<string, unknown> {
  return isRecord(input) ? input : { input };
}
