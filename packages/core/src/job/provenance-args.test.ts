import { describe, expect, it } from "vitest";
import type { DigestCandidate } from "../classify/classify-thread";
import { provenanceArgs } from "./provenance-args";

/** Only what provenanceArgs reads of a candidate: its rule's provenance args and its call's args. */
const candidate = (names: readonly string[], args: Record<string, unknown>) =>
  ({ rule: { provenanceArgs: names }, call: { args } }) as unknown as DigestCandidate;

describe("provenanceArgs", () => {
  it("keeps the policy's provenance args the call has, and only those", () => {
    expect(
      provenanceArgs(candidate(["file_id", "page"], { file_id: "f-1", page: 2, query: "x" })),
    ).toStrictEqual({
      file_id: "f-1",
      page: 2,
    });
    expect(provenanceArgs(candidate(["file_id", "page"], { file_id: "f-1" }))).toStrictEqual({
      file_id: "f-1",
    });
  });

  it("keeps an arg the call gives as undefined under its name", () => {
    expect(Object.keys(provenanceArgs(candidate(["page"], { page: undefined })))).toEqual(["page"]);
  });

  it("keeps every arg of the call when the tool has no provenance args", () => {
    expect(provenanceArgs(candidate([], { command: "ls", cwd: "/" }))).toStrictEqual({
      command: "ls",
      cwd: "/",
    });
  });
});
