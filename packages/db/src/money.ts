import { microUsdToUsd, usdProblem, usdToMicroUsd } from "@context-cleaner/assembler/internal";
import { InvalidStorageInputError } from "./errors";

/**
 * USD → integer micro-USD (what the ledger stores, so sums never drift).
 * @throws {InvalidStorageInputError} when the amount is not a finite number ≥ 0.
 */
export function usdToMicros(usd: number, field: string): number {
  const problem = usdProblem(usd);
  if (problem !== undefined) throw new InvalidStorageInputError(field, problem);
  return usdToMicroUsd(usd);
}

/** Integer micro-USD → USD. */
export const microsToUsd = microUsdToUsd;
