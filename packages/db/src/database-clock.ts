import { sql } from "drizzle-orm";

/**
 * The database's now, as each statement runs (not the transaction's start). Leases, pass
 * records and purges are all timed by this one clock, never by a caller's: a worker or an
 * operator whose clock is off neither takes a live lease, nor orders a pass record before
 * or after the wrong one, nor covers turns that have not ended.
 */
export const DATABASE_NOW = sql`clock_timestamp()`;
