import { DeadlineExceededError } from "../errors";

/**
 * Runs `call` with an `AbortSignal` that fires after `timeoutMs`, and settles no later
 * than that whether or not the call honours the signal (an SDK may retry, or a client
 * may ignore aborts between attempts).
 *
 * @throws {DeadlineExceededError} when the deadline passes first; otherwise what `call` throws.
 */
export async function withDeadline<T>(
  operation: string,
  timeoutMs: number,
  call: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const error = new DeadlineExceededError(operation, timeoutMs);
      controller.abort(error);
      reject(error);
    }, timeoutMs);
  });
  try {
    return await Promise.race([call(controller.signal), deadline]);
  } finally {
    clearTimeout(timer);
  }
}
