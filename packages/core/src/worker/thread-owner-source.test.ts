import { describe, expect, it } from "vitest";
import { parseThreadOwnerSource } from "./thread-owner-source";

describe("parseThreadOwnerSource", () => {
  it("takes the two sources and refuses anything else", () => {
    expect(parseThreadOwnerSource("checkpoint")).toBe("checkpoint");
    expect(parseThreadOwnerSource("table")).toBe("table");
    expect(() => parseThreadOwnerSource("Table")).toThrow(
      /THREAD_OWNER_SOURCE must be one of checkpoint, table/,
    );
  });
});
