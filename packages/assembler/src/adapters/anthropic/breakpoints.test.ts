import { describe, expect, it } from "vitest";
import { breakpointPlacements } from "./breakpoints";

describe("breakpointPlacements", () => {
  it("places the end first, then the stable prefix's end", () => {
    expect(breakpointPlacements(["user", "assistant", "user", "assistant", "user"], 2)).toEqual([
      { message: 4, kind: "end" },
      { message: 2, kind: "prefix" },
    ]);
  });

  it("moves the prefix's breakpoint off the latest assistant message onto the one before it", () => {
    expect(breakpointPlacements(["user", "assistant", "user", "assistant", "user"], 3)).toEqual([
      { message: 4, kind: "end" },
      { message: 2, kind: "prefix" },
    ]);
  });

  it("puts the end of a request ending on the latest assistant message on the latest earlier message that carries one", () => {
    const roles = ["user", "assistant", "user", "user", "assistant"];
    expect(breakpointPlacements(roles, -1, (index) => index !== 3)).toEqual([{ message: 2, kind: "end" }]);
    expect(breakpointPlacements(roles, 3)).toEqual([{ message: 3, kind: "end" }]);
  });

  it("sets one breakpoint where the end and the prefix meet, and none on a message that carries none", () => {
    expect(breakpointPlacements(["user", "assistant"], 0)).toEqual([{ message: 0, kind: "end" }]);
    expect(breakpointPlacements(["user", "user"], 0, (index) => index === 0)).toEqual([
      { message: 0, kind: "prefix" },
    ]);
    expect(breakpointPlacements(["assistant"], 0)).toEqual([]);
    expect(breakpointPlacements([], -1)).toEqual([]);
  });
});
