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

  it("carry a stable snake_case code and are not retryable (bad input stays bad)", () => {
    const errors = [
      new InvalidThreadError("x"),
      new InvalidToolPolicyError("x"),
      new InvalidOptionError("x", "field"),
    ];
    expect(errors.map((error) => error.code)).toEqual([
      "invalid_thread",
      "invalid_tool_policy",
      "invalid_option",
    ]);
    for (const error of errors) {
      expect(error.code).toMatch(/^[a-z]+(_[a-z]+)*$/);
      expect(error.retryable).toBe(false);
    }
  });

  it("keeps a cause, a code and the retryable flag given to the base", () => {
    const cause = new SyntaxError("x");
    const error = new ContextCleanerError("wrapped", { code: "store_failed", retryable: true, cause });
    expect(error.cause).toBe(cause);
    expect(error.name).toBe("ContextCleanerError");
    expect(error).toMatchObject({ code: "store_failed", retryable: true });
  });

  it("defaults retryable to false and sets no cause when none is given", () => {
    const error = new ContextCleanerError("plain", { code: "plain" });
    expect(error.retryable).toBe(false);
    expect("cause" in error).toBe(false);
  });

  it("a tool policy error keeps its cause", () => {
    const cause = new SyntaxError("bad regex");
    expect(new InvalidToolPolicyError("x", { tool: "t", cause }).cause).toBe(cause);
  });
});
