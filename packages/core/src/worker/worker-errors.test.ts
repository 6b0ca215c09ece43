import { describe, expect, it } from "vitest";
import { CoreError } from "../errors";
import { PoisonRecordError, RecordHandedBack } from "./digest-handler";
import { FunctionIssue } from "./observability";
import { SweepSendError } from "./sweep-handler";

/** An error built by another copy of the package: same markers, other classes. */
function copyOf(name: string): Error {
  const error = new Error("from another copy");
  Object.defineProperty(error, Symbol.for("context-cleaner.core.error"), { value: true });
  Object.defineProperty(error, Symbol.for(`context-cleaner.core.error.${name}`), { value: true });
  return error;
}

describe("the worker's errors", () => {
  const errors = [
    [new FunctionIssue("DigestJobFailed", "digest job failed", { messageId: "m-1" }), FunctionIssue],
    [new RecordHandedBack("turn_lock", 60), RecordHandedBack],
    [new PoisonRecordError("body is not JSON"), PoisonRecordError],
    [new SweepSendError(2), SweepSendError],
  ] as const;

  it.each(errors)("%s is a core error with a code, recognised by its own isInstance only", (error, own) => {
    expect(error).toBeInstanceOf(CoreError);
    expect(CoreError.isInstance(error)).toBe(true);
    expect(own.isInstance(error)).toBe(true);
    expect(typeof error.code).toBe("string");
    for (const [, other] of errors) if (other !== own) expect(other.isInstance(error)).toBe(false);
  });

  it("recognises an error of another copy of the package by its marker, and nothing else", () => {
    expect(PoisonRecordError.isInstance(copyOf("PoisonRecordError"))).toBe(true);
    expect(CoreError.isInstance(copyOf("PoisonRecordError"))).toBe(true);
    expect(RecordHandedBack.isInstance(copyOf("PoisonRecordError"))).toBe(false);
    for (const value of [new Error("plain"), null, undefined, "PoisonRecordError", { reason: "x" }]) {
      expect(CoreError.isInstance(value)).toBe(false);
      expect(PoisonRecordError.isInstance(value)).toBe(false);
    }
  });

  it("says which can be retried: a hand-back and failed sends can, a poison record cannot", () => {
    expect(new RecordHandedBack("claimed", 60).retryable).toBe(true);
    expect(new SweepSendError(1).retryable).toBe(true);
    expect(new PoisonRecordError("x").retryable).toBe(false);
  });
});
