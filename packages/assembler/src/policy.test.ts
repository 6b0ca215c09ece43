import { describe, expect, it } from "vitest";
import { InvalidToolPolicyError } from "./errors";
import {
  createToolPolicy,
  DEFAULT_HIT_ID_PATTERN,
  DEFAULT_LEDGER_MARKER,
  resolveToolPolicy,
  type ToolRuleInput,
} from "./policy";

function policyError(run: () => unknown): InvalidToolPolicyError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidToolPolicyError);
    return error as InvalidToolPolicyError;
  }
  throw new Error("expected an InvalidToolPolicyError");
}

describe("createToolPolicy defaults", () => {
  const policy = createToolPolicy();

  it("knows the default document-read tools with their provenance and offset args", () => {
    const readDocument = policy.ruleFor("read_document");
    expect(readDocument).toMatchObject({
      kind: "document-read",
      provenanceArgs: ["file_id", "offset"],
      offsetArg: "offset",
      idempotent: true,
    });
    expect(readDocument.ledgerMarker).toBe(DEFAULT_LEDGER_MARKER);
    expect(policy.ruleFor("get_document_text")).toMatchObject({
      provenanceArgs: ["document_id", "text_offset"],
      offsetArg: "text_offset",
    });
  });

  it("gives search tools the default hit-id pattern and no idempotence", () => {
    expect(policy.ruleFor("search")).toMatchObject({ kind: "search", idempotent: false });
    expect(policy.ruleFor("web_search").hitIdPattern).toBe(DEFAULT_HIT_ID_PATTERN);
  });

  it("marks ask_user as an interrupt and memory/skill tools as keep", () => {
    expect(policy.ruleFor("ask_user").kind).toBe("interrupt");
    expect(policy.ruleFor("save_memory").kind).toBe("keep");
    expect(policy.ruleFor("load_skill").kind).toBe("keep");
  });

  it("defaults bulkMinChars to 8,000", () => {
    expect(policy.bulkMinChars).toBe(8_000);
  });

  it("gives an unknown tool an `other`, non-idempotent rule, the same object on every call", () => {
    const rule = policy.ruleFor("send_invoice");
    expect(rule).toMatchObject({
      name: "send_invoice",
      kind: "other",
      idempotent: false,
      provenanceArgs: [],
    });
    expect(rule.ledgerMarker).toBeUndefined();
    expect(policy.ruleFor("send_invoice")).toBe(rule);
    expect(policy.tools.has("send_invoice")).toBe(false);
  });
});

describe("createToolPolicy merging", () => {
  it("adds user tools over the defaults, which stay", () => {
    const policy = createToolPolicy({
      tools: { fetch_contract: { kind: "document-read", provenanceArgs: ["contract_id", "page"] } },
    });
    expect(policy.ruleFor("fetch_contract")).toMatchObject({
      kind: "document-read",
      offsetArg: "page",
      idempotent: true,
    });
    expect(policy.ruleFor("read_document").kind).toBe("document-read");
  });

  it("replaces a default rule named by the user", () => {
    const policy = createToolPolicy({ tools: { ask_user: { kind: "other" } } });
    expect(policy.ruleFor("ask_user").kind).toBe("other");
  });

  it("drops every default with replaceDefaults", () => {
    const policy = createToolPolicy({ replaceDefaults: true, tools: { send_mail: { kind: "interrupt" } } });
    expect(policy.ruleFor("read_document").kind).toBe("other");
    expect(policy.ruleFor("send_mail").kind).toBe("interrupt");
    expect([...policy.tools.keys()]).toEqual(["send_mail"]);
  });

  it("honours an explicit idempotent flag and a custom ledger marker (case-insensitive)", () => {
    const policy = createToolPolicy({
      tools: {
        lookup_case: { kind: "other", idempotent: true },
        read_brief: { kind: "document-read", provenanceArgs: ["brief_id"], ledgerMarker: "REDLINE-LOG" },
      },
    });
    expect(policy.ruleFor("lookup_case").idempotent).toBe(true);
    expect(policy.ruleFor("read_brief").ledgerMarker?.test("see redline-log below")).toBe(true);
  });

  it("accepts a RegExp marker and adds the case-insensitive flag", () => {
    const policy = createToolPolicy({
      tools: { read_brief: { kind: "document-read", provenanceArgs: ["brief_id"], ledgerMarker: /AUDIT/ } },
    });
    expect(policy.ruleFor("read_brief").ledgerMarker?.flags).toContain("i");
  });

  it("resolveToolPolicy passes a built policy through and builds an input", () => {
    const built = createToolPolicy();
    expect(resolveToolPolicy(built)).toBe(built);
    expect(resolveToolPolicy({ tools: { x: { kind: "keep" } } }).ruleFor("x").kind).toBe("keep");
    expect(resolveToolPolicy(undefined).ruleFor("ask_user").kind).toBe("interrupt");
  });
});

describe("createToolPolicy validation", () => {
  it("rejects an unknown kind, naming the tool and the field", () => {
    const error = policyError(() =>
      createToolPolicy({ tools: { fetch_contract: { kind: "reader" } as unknown as ToolRuleInput } }),
    );
    expect(error.tool).toBe("fetch_contract");
    expect(error.field).toBe("kind");
    expect(error.message).toContain("fetch_contract");
    expect(error.message).toContain('"reader"');
  });

  it("rejects a document-read tool without provenance args", () => {
    const error = policyError(() =>
      createToolPolicy({ tools: { fetch_contract: { kind: "document-read" } } }),
    );
    expect(error).toMatchObject({ tool: "fetch_contract", field: "provenanceArgs" });
  });

  it("rejects empty provenance arg names", () => {
    const error = policyError(() =>
      createToolPolicy({ tools: { fetch_contract: { kind: "document-read", provenanceArgs: [""] } } }),
    );
    expect(error.field).toBe("provenanceArgs");
  });

  it("rejects a bad regex, keeping the SyntaxError as cause", () => {
    const error = policyError(() =>
      createToolPolicy({
        tools: {
          read_brief: { kind: "document-read", provenanceArgs: ["brief_id"], ledgerMarker: "(unclosed" },
        },
      }),
    );
    expect(error).toMatchObject({ tool: "read_brief", field: "ledgerMarker" });
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it("rejects a bad hit-id pattern", () => {
    const error = policyError(() =>
      createToolPolicy({ tools: { find: { kind: "search", hitIdPattern: "[" } } }),
    );
    expect(error).toMatchObject({ tool: "find", field: "hitIdPattern" });
  });

  it("rejects a non-boolean idempotent flag and an empty offsetArg", () => {
    expect(
      policyError(() =>
        createToolPolicy({ tools: { x: { kind: "other", idempotent: "yes" as unknown as boolean } } }),
      ).field,
    ).toBe("idempotent");
    expect(
      policyError(() =>
        createToolPolicy({ tools: { x: { kind: "document-read", provenanceArgs: ["id"], offsetArg: "" } } }),
      ).field,
    ).toBe("offsetArg");
  });

  it.each([0, -5, 1.5, Number.NaN])("rejects bulkMinChars %s", (bulkMinChars) => {
    expect(policyError(() => createToolPolicy({ bulkMinChars })).field).toBe("bulkMinChars");
  });
});
