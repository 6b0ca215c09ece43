import { InvalidStorageInputError } from "./errors";

const MICROS_PER_USD = 1_000_000;

/**
 * USD → integer micro-USD (what the ledger stores, so sums never drift).
 * @throws {InvalidStorageInputError} when the amount is not a finite number ≥ 0.
 */
export function usdToMicros(usd: number, field: string): number {
  if (typeof usd !== "number" || !Number.isFinite(usd) || usd < 0) {
    throw new InvalidStorageInputError(field, `expected a finite USD amount ≥ 0, got ${String(usd)}`);
  }
  return Math.round(usd * MICROS_PER_USD);
}

/** Integer micro-USD → USD. */
export function microsToUsd(micros: number): number {
  return micros / MICROS_PER_USD;
}
