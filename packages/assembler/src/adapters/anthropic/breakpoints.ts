/**
 * Where the Anthropic adapter sets its own `cache_control` breakpoints, by message index:
 * one rule, shared by the adapter and by anything that models what its requests cost.
 */

/** A breakpoint the adapter sets: the message it goes on and why. */
export interface BreakpointPlacement {
  /** Index into the messages. */
  message: number;
  /** `end`: end of the request; `prefix`: end of the stable prefix. */
  kind: "end" | "prefix";
}

/**
 * The messages the adapter's breakpoints go on, the end of the request first (when only
 * one fits, it is the one the next call reads), then the end of the stable prefix; at most
 * one per message. Never on the latest assistant message (it goes as it came): the
 * prefix's goes on the message before it, and a request ending on it (a prefill, a paused
 * turn's continuation) has its end breakpoint on the latest message before it that
 * `carries` one. A message that does not carry one gets none.
 *
 * @param roles Each message's role, in order.
 * @param stableEnd Index of the last message of the stable prefix; -1 when there is none.
 * @param carries Whether the message at an index may carry a breakpoint (has a block that is not thinking).
 */
export function breakpointPlacements(
  roles: readonly string[],
  stableEnd: number,
  carries: (index: number) => boolean = () => true,
): BreakpointPlacement[] {
  const latestAssistant = roles.lastIndexOf("assistant");
  let last = roles.length - 1;
  if (last === latestAssistant) {
    last--;
    while (last >= 0 && !carries(last)) last--;
  }
  const prefix = stableEnd === latestAssistant ? stableEnd - 1 : stableEnd;
  const placed: BreakpointPlacement[] = [];
  for (const [message, kind] of [
    [last, "end"],
    [prefix, "prefix"],
  ] as const) {
    if (message < 0 || message === latestAssistant || placed.some((mark) => mark.message === message))
      continue;
    if (!carries(message)) continue;
    placed.push({ message, kind });
  }
  return placed;
}
