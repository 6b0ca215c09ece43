import type { LatestTurnInput, OrgDigestSummary, PolicyAudit } from "@context-cleaner/db/server";
import { describe, expect, expectTypeOf, it } from "vitest";
import * as shared from "./entry-exports";
import * as main from "./index";
import * as neon from "./neon";
import * as server from "./server";

describe("the storage package's entries", () => {
  it("export the repository and its errors alike, main, ./server and ./neon", () => {
    for (const entry of [main, server, neon]) {
      expect(Object.keys(entry)).toEqual(expect.arrayContaining(Object.keys(shared)));
    }
  });

  it("name the repository's policy and turn types from ./server too (checked by the typecheck)", () => {
    expectTypeOf<PolicyAudit>().toHaveProperty("updatedBy");
    expectTypeOf<OrgDigestSummary>().not.toBeAny();
    expectTypeOf<LatestTurnInput>().not.toBeAny();
  });
});
