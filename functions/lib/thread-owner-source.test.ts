import { parseThreadOwnerSource } from "@context-cleaner/core/worker";
import { describe, expect, it } from "vitest";

describe("parseThreadOwnerSource", () => {
  it("takes the two sources and refuses anything else", () => {
    expect(parseThreadOwnerSource("checkpoint")).toBe("checkpoint");
    expect(parseThreadOwnerSource("table")).toBe("table");
    expect(() => parseThreadOwnerSource("Table")).toThrow(
      /THREAD_OWNER_SOURCE must be one of checkpoint, table/,
    );
  });
});
