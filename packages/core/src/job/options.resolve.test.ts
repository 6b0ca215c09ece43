import { InvalidOptionError } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { DIGEST_JOB_DEFAULTS, resolveJobOptions } from "./options";

describe("resolveJobOptions", () => {
  it("fills every default in and keeps what is given", () => {
    expect(resolveJobOptions()).toStrictEqual({ ...DIGEST_JOB_DEFAULTS });
    expect(resolveJobOptions({ maxCallsPerJob: 3, disabled: true })).toStrictEqual({
      ...DIGEST_JOB_DEFAULTS,
      maxCallsPerJob: 3,
      disabled: true,
    });
    expect(DIGEST_JOB_DEFAULTS).toMatchObject({ disabled: false, readOriginal: false });
  });

  it("takes a digestConcurrency of 1", () => {
    expect(resolveJobOptions({ digestConcurrency: 1 }).digestConcurrency).toBe(1);
  });

  it.each([0, -2, 1.5, Number.NaN])("refuses a digestConcurrency of %s, naming it", (digestConcurrency) => {
    let caught: unknown;
    try {
      resolveJobOptions({ digestConcurrency });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidOptionError);
    expect((caught as Error).message).toBe(
      `digestConcurrency must be a positive integer, got ${String(digestConcurrency)}`,
    );
    expect(caught).toMatchObject({ field: "digestConcurrency" });
  });

  it("keeps a mid-turn pass's latest exchange raw by default, as the assembly's watermark does, and refuses fewer than one", () => {
    expect(DIGEST_JOB_DEFAULTS.midTurnKeepExchanges).toBe(1);
    expect(() => resolveJobOptions({ midTurnKeepExchanges: 0 })).toThrow(
      "midTurnKeepExchanges must be a positive integer, got 0",
    );
    expect(resolveJobOptions({ midTurnKeepExchanges: 2 }).midTurnKeepExchanges).toBe(2);
  });
});
