import type { AssembleOptions } from "../../assemble";

/**
 * The view an integration sends when assembly fails (a cleaner bug, an option a JSON store
 * mangled, a broken policy): what the kill switch sends, the history backstop alone over
 * the thread, never the raw thread past its budget. Tried with the assembly's own budget
 * options, then with the defaults; undefined when even that fails (a thread that is not
 * well formed), and the caller sends what it was given.
 */
export function backstopFallback<V>(
  assemble: (options: AssembleOptions) => V,
  options: AssembleOptions | undefined,
): V | undefined {
  const budget: AssembleOptions = {
    ...(options?.historyBudgetChars === undefined ? {} : { historyBudgetChars: options.historyBudgetChars }),
    ...(options?.snippetChars === undefined ? {} : { snippetChars: options.snippetChars }),
    ...(options?.noteMaxChars === undefined ? {} : { noteMaxChars: options.noteMaxChars }),
  };
  for (const attempt of [budget, {}]) {
    try {
      return assemble({ ...attempt, disabled: true });
    } catch {
      // The next attempt drops the caller's options; the last gives up.
    }
  }
  return undefined;
}

/** `onReport` as an integration passes it on: its errors go to `onError` and never change what is sent. */
export function guardedReport(
  onReport: AssembleOptions["onReport"],
  onError: (error: unknown) => void,
): Pick<AssembleOptions, "onReport"> {
  if (onReport === undefined) return {};
  return {
    onReport: (report) => {
      try {
        onReport(report);
      } catch (error) {
        onError(error);
      }
    },
  };
}
