import { describe, expect, it } from "vitest";
import { FailureBackoff } from "./failure-backoff";

const SKIPPED = Symbol("skipped");
const failing = () =>
  Promise.reject(Object.assign(new Error("connect ECONNREFUSED"), { code: "ECONNREFUSED" }));

describe("FailureBackoff", () => {
  it("skips the call for the initial window after a failure, doubles it while the call keeps failing, and ends on a success", async () => {
    const backoff = new FailureBackoff(
      { what: "loading", meanwhile: "going on" },
      { initialMs: 1_000, maxMs: 8_000 },
    );
    const reports: unknown[] = [];
    const report = (error: unknown) => void reports.push(error);
    expect(await backoff.run(failing, SKIPPED, 0, report)).toBe(SKIPPED);
    // Within the window, the call is not made.
    let calls = 0;
    const counted = () => {
      calls++;
      return failing();
    };
    expect(await backoff.run(counted, SKIPPED, 999, report)).toBe(SKIPPED);
    expect(calls).toBe(0);
    // After it, the retry fails: the window doubles (2 s).
    await backoff.run(counted, SKIPPED, 1_000, report);
    expect(calls).toBe(1);
    await backoff.run(counted, SKIPPED, 2_999, report);
    expect(calls).toBe(1);
    expect(await backoff.run(() => "rows", SKIPPED, 3_000, report)).toBe("rows");
    expect(await backoff.run(() => "rows", SKIPPED, 3_001, report)).toBe("rows");
    // The outage was said once.
    expect(reports).toHaveLength(1);
  });

  it("grows the window once for failures of calls made at the same time, not once per call", async () => {
    const backoff = new FailureBackoff(
      { what: "loading", meanwhile: "going on" },
      { initialMs: 1_000, maxMs: 300_000 },
    );
    // Four turns in flight when the database goes down: all four fail.
    await Promise.all([0, 1, 2, 3].map(() => backoff.run(failing, SKIPPED, 0, () => undefined)));
    // One outage, one initial window: the call is tried again after it.
    expect(
      await backoff.run(
        () => "rows",
        SKIPPED,
        1_000,
        () => undefined,
      ),
    ).toBe("rows");
  });
});
