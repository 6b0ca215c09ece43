import { microUsdToUsd } from "@context-cleaner/assembler/internal";
import { and, eq, sql } from "drizzle-orm";
import type { Database } from "./database-types";
import { InvalidStorageInputError } from "./errors";
import type { SpendReservation } from "./repository-types";
import { spendLedger } from "./schema/spend-ledger";
import { checkedMicroUsd, requireOrganizationId, requireUtcDay } from "./validation";

/**
 * How long a day's reservations are held after the ledger row's last reservation or
 * settlement (`updated_at`): the thread lease's duration (the longest function timeout plus
 * a minute). A live run settles its reservations within it; past it, those left are of a
 * run that died, and they no longer hold the org's day.
 */
export const SPEND_HOLD_MS = 960_000;

/**
 * Reserves `amountUsd` of the org's daily budget before a model call. Atomic: the
 * conditional UPDATE holds the ledger row's lock and re-checks the budget against the
 * committed row, so concurrent reservations never overspend. Reservations of a row
 * untouched for longer than `holdMs` are dropped first (see {@link SPEND_HOLD_MS}).
 */
export async function reserveSpend(
  database: Database,
  orgId: string,
  day: string,
  amountUsd: number,
  budgetUsd: number,
  holdMs: number = SPEND_HOLD_MS,
): Promise<SpendReservation> {
  const organization = requireOrganizationId(orgId);
  const utcDay = requireUtcDay(day);
  const amount = checkedMicroUsd(amountUsd, "amountUsd");
  const budget = checkedMicroUsd(budgetUsd, "budgetUsd");
  const hold = Math.max(0, Math.floor(holdMs));
  // What is still held: nothing once the row was untouched for longer than the hold.
  const held = sql`(case when ${spendLedger.updatedAt} < now() - ${hold} * interval '1 millisecond' then 0 else ${spendLedger.reservedMicroUsd} end)`;
  return database.withOrganization(organization, async (transaction) => {
    await transaction.insert(spendLedger).values({ orgId: organization, day: utcDay }).onConflictDoNothing();
    const reserved = await transaction
      .update(spendLedger)
      .set({
        reservedMicroUsd: sql`${held} + ${amount}`,
        updatedAt: sql`now()`,
      })
      .where(
        and(
          eq(spendLedger.orgId, organization),
          eq(spendLedger.day, utcDay),
          sql`${held} + ${spendLedger.spentMicroUsd} + ${amount} <= ${budget}`,
        ),
      )
      .returning({ reserved: spendLedger.reservedMicroUsd, spent: spendLedger.spentMicroUsd });
    let ledger = reserved[0];
    if (ledger === undefined) {
      const current = await transaction
        .select({ reserved: sql<number>`${held}`, spent: spendLedger.spentMicroUsd })
        .from(spendLedger)
        .where(and(eq(spendLedger.orgId, organization), eq(spendLedger.day, utcDay)));
      ledger = current[0] ?? { reserved: 0, spent: 0 };
    }
    return {
      ok: reserved.length === 1,
      reservedUsd: reserved.length === 1 ? microUsdToUsd(amount) : 0,
      remainingUsd: microUsdToUsd(budget - Number(ledger.reserved) - Number(ledger.spent)),
    };
  });
}

/**
 * Settles a reservation: releases `reservedUsd` and books `actualUsd` as spent.
 * @throws {InvalidStorageInputError} when there is no ledger row to release a reservation from.
 * @throws {ConstraintViolationError} when releasing more than is reserved.
 */
export async function settleSpend(
  database: Database,
  orgId: string,
  day: string,
  reservedUsd: number,
  actualUsd: number,
): Promise<void> {
  const organization = requireOrganizationId(orgId);
  const utcDay = requireUtcDay(day);
  const reserved = checkedMicroUsd(reservedUsd, "reservedUsd");
  const actual = checkedMicroUsd(actualUsd, "actualUsd");
  await database.withOrganization(organization, async (transaction) => {
    const updated = await transaction
      .update(spendLedger)
      .set({
        reservedMicroUsd: sql`${spendLedger.reservedMicroUsd} - ${reserved}`,
        spentMicroUsd: sql`${spendLedger.spentMicroUsd} + ${actual}`,
        updatedAt: sql`now()`,
      })
      .where(and(eq(spendLedger.orgId, organization), eq(spendLedger.day, utcDay)))
      .returning({ day: spendLedger.day });
    if (updated.length === 0) {
      if (reserved > 0) {
        throw new InvalidStorageInputError("reservedUsd", `nothing is reserved for ${utcDay}`);
      }
      await transaction
        .insert(spendLedger)
        .values({ orgId: organization, day: utcDay, spentMicroUsd: actual });
    }
  });
}

/** The day's ledger in USD (zeros when nothing was reserved). */
export async function getSpend(
  database: Database,
  orgId: string,
  day: string,
): Promise<{ reservedUsd: number; spentUsd: number }> {
  const utcDay = requireUtcDay(day);
  const rows = await database.withOrganization(
    orgId,
    (transaction) =>
      transaction
        .select({ reserved: spendLedger.reservedMicroUsd, spent: spendLedger.spentMicroUsd })
        .from(spendLedger)
        .where(and(eq(spendLedger.orgId, orgId), eq(spendLedger.day, utcDay))),
    { readOnly: true },
  );
  const row = rows[0];
  return {
    reservedUsd: microUsdToUsd(Number(row?.reserved ?? 0)),
    spentUsd: microUsdToUsd(Number(row?.spent ?? 0)),
  };
}
