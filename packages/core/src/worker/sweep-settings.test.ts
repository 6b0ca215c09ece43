import { describe, expect, it } from "vitest";
import { sweepOptionsFromEnvironment } from "./sweep-settings";

describe("sweepOptionsFromEnvironment", () => {
  it("leaves the defaults when nothing is set, or set empty", () => {
    expect(sweepOptionsFromEnvironment({})).toEqual({});
    expect(sweepOptionsFromEnvironment({ SWEEP_MAX_THREADS: "", SWEEP_GIVE_UP_AFTER_NIGHTS: "" })).toEqual(
      {},
    );
  });

  it("reads the run's bound and how many nights a thread left behind is retried", () => {
    expect(
      sweepOptionsFromEnvironment({ SWEEP_MAX_THREADS: "250", SWEEP_GIVE_UP_AFTER_NIGHTS: "14" }),
    ).toEqual({
      maxThreads: 250,
      giveUpAfterNights: 14,
    });
  });

  it.each(["0", "-3", "2.5", "five", "1e3", "99999999999999999999"])(
    "refuses %s, naming the variable",
    (value) => {
      expect(() => sweepOptionsFromEnvironment({ SWEEP_GIVE_UP_AFTER_NIGHTS: value })).toThrow(
        `SWEEP_GIVE_UP_AFTER_NIGHTS must be a whole number of at least 1, got ${JSON.stringify(value)}`,
      );
    },
  );
});
