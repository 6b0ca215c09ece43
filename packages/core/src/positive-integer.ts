/**
 * The value of a setting that must be a whole number of at least 1, written in decimal digits
 * (surrounding whitespace allowed); undefined when it is anything else: `0`, `-3`, `2.5`,
 * `2.0`, `1e3`, `0x10`, or more than `Number.MAX_SAFE_INTEGER`. The command line's flags and
 * the functions' environment variables read counts through this, so a count is written the
 * same way in both.
 */
export function parsePositiveInteger(text: string): number | undefined {
  const digits = text.trim();
  if (!/^[1-9][0-9]*$/.test(digits)) return undefined;
  const value = Number(digits);
  return Number.isSafeInteger(value) ? value : undefined;
}
