import { describe, expect, it } from "vitest";
import {
  ContextCleanerError,
  InvalidOptionError,
  InvalidThreadError,
  InvalidToolPolicyError,
} from "./errors";

describe("assembler errors", () => {
  it("share one base class, set their name and keep their structured fields", () => {
    const thread = new InvalidThreadError("messages[3].content bad", { index: 3, field: "content" });
    const policy = new InvalidToolPolicyError("bad kind", { tool: "fetch", field: "kind" });
    const option = new InvalidOptionError("bad budget", "historyBudgetChars");
    for (const error of [thread, policy, option]) {
      expect(error).toBeInstanceOf(ContextCleanerError);
      expect(error).toBeInstanceOf(Error);
    }
    expect([thread.name, policy.name, option.name]).toEqual([
      "InvalidThreadError",
      "InvalidToolPolicyError",
      "InvalidOptionError",
    ]);
    expect(thread).toMatchObject({ index: 3, field: "content" });
    expect(policy).toMatchObject({ tool: "fetch", field: "kind" });
    expect(option.field).toBe("historyBudgetChars");
  });

  it("keeps a cause", () => {
    const cause = new SyntaxError("x");
    const error = new ContextCleanerError("wrapped", { cause });
    expect(error.cause).toBe(cause);
    expect(error.name).toBe("ContextCleanerError");
  });
});
