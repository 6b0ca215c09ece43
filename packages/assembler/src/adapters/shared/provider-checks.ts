import { InvalidThreadError } from "../../errors";
import { describeValue, isRecord } from "../../validate";

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
