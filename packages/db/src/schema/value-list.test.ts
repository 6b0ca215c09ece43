import { DIGEST_KINDS, PASS_STATUSES } from "@context-cleaner/assembler/internal";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { contextDigest } from "./context-digest";
import { threadPass } from "./thread-pass";
import { isOneOf } from "./value-list";

const dialect = new PgDialect();

describe("isOneOf", () => {
  it("renders the CHECK of a vocabulary list as inline literals, as the migrations hold it", () => {
    expect(dialect.sqlToQuery(isOneOf(contextDigest.kind, DIGEST_KINDS))).toEqual({
      sql: `"context_digest"."kind" in ('digest', 'superseded-search')`,
      params: [],
    });
    expect(dialect.sqlToQuery(isOneOf(threadPass.status, PASS_STATUSES)).sql).toBe(
      `"thread_pass"."status" in ('done', 'skipped', 'partial', 'failed')`,
    );
  });

  it("refuses a value that is not a plain word, since it is inlined", () => {
    expect(() => isOneOf(threadPass.status, ["done", "x') or ('1"])).toThrow(/not a plain vocabulary value/);
  });
});
