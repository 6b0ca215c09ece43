import type { Context } from "aws-lambda";

/**
 * A handler built on its first invocation (the module does no I/O when it loads) and kept
 * for the container's life. A build that fails is not kept: that invocation fails, so its
 * batch is retried, and the next invocation builds again.
 */
export function lazyHandler<TEvent, TResult>(
  build: () => Promise<(event: TEvent, context: Context) => Promise<TResult>>,
): (event: TEvent, context: Context) => Promise<TResult> {
  let built: Promise<(event: TEvent, context: Context) => Promise<TResult>> | undefined;
  return async (event, context) => {
    built ??= build().catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return (await built)(event, context);
  };
}
