import { afterEach, describe, expect, it } from "vitest";
import {
  digestFor,
  documentPage,
  systemMessage,
  toolExchange,
  userMessage,
} from "#test/assembler/fixtures/thread-builder";
import { type AssemblyReport, assembleModelView, SHADOW_KEPT_FIGURES_LIMIT } from "./assemble";
import { effectiveToolChars } from "./budget";
import { contentText } from "./content";
import { DIGEST_HEADER } from "./contract/stubs";
import { InvalidOptionError, InvalidToolPolicyError } from "./errors";
import { type OrgPolicyInput, orgPolicyData, validateOrgPolicy } from "./org-policy";
import { createToolPolicy, withToolRules } from "./policy";
import type { DigestEntry, Message } from "./types";

const PAGE_1 = documentPage("lease_445", 1);
const PAGE_2 = documentPage("lease_445", 2);
const NOTES = documentPage("notes_1", 1);

function digestText(source: string): string {
  return `${DIGEST_HEADER}\ntool: read_document\nsource: ${source}\ndigest:\n  - base rent $1,250,000/yr`;
}

/**
 * Two document reads and a file read before the recency wall, each with a matching digest
 * row: every one of them is condensed when nothing protects it.
 */
function thread(): Message[] {
  return [
    systemMessage(),
    userMessage("Review the lease."),
    ...toolExchange("r1", "read_document", { file_id: "lease_445", offset: 0 }, PAGE_1),
    ...toolExchange("r2", "read_document", { file_id: "lease_445", offset: 5_000 }, PAGE_2),
    ...toolExchange("f1", "read_file", { path: "/pinned/notes.md", offset: 0 }, NOTES),
    ...toolExchange("w1", "web_search", { q: "a" }, "id: https://example.com/a"),
    ...toolExchange("w2", "web_search", { q: "b" }, "id: https://example.com/b"),
    ...toolExchange("w3", "web_search", { q: "c" }, "id: https://example.com/c"),
    userMessage("Draft the memo."),
  ];
}

function digests(): Map<string, DigestEntry> {
  return new Map([
    ["r1", digestFor(PAGE_1, digestText("lease_445 page 1"))],
    ["r2", digestFor(PAGE_2, digestText("lease_445 page 2"))],
    ["f1", digestFor(NOTES, digestText("notes page 1"))],
  ]);
}

function assembleUnder(
  policy: OrgPolicyInput | undefined,
  extra: Parameters<typeof assembleModelView>[2] = {},
) {
  const messages = thread();
  const reports: AssemblyReport[] = [];
  const result = assembleModelView(messages, digests(), {
    ...extra,
    disabled: false,
    orgPolicy: policy === undefined ? undefined : validateOrgPolicy(policy),
    onReport: (report) => reports.push(report),
  });
  return { ...result, reports };
}

describe("validateOrgPolicy", () => {
  it("fills mode on and keeps only the overrides given", () => {
    const policy = validateOrgPolicy({ maxCallsPerJob: 4, dailyBudgetUsd: 0.5 });
    expect(policy.mode).toBe("on");
    expect(policy.overrides).toEqual({ maxCallsPerJob: 4, dailyBudgetUsd: 0.5 });
    expect(orgPolicyData(policy)).toEqual({ mode: "on", maxCallsPerJob: 4, dailyBudgetUsd: 0.5 });
  });

  it.each([
    [{ mode: "paused" }, "mode", /mode must be one of on, shadow, off/],
    [{ triggerChars: -1 }, "triggerChars", /triggerChars must be an integer ≥ 0, got -1/],
    [{ maxCallsPerJob: 2.5 }, "maxCallsPerJob", /maxCallsPerJob must be an integer/],
    [{ digestCharCap: 50 }, "digestCharCap", /digestCharCap must be an integer ≥ 200/],
    [{ dailyBudgetUsd: "5" }, "dailyBudgetUsd", /dailyBudgetUsd must be a number ≥ 0, got the string "5"/],
    [{ recencyKeepExchanges: Number.NaN }, "recencyKeepExchanges", /recencyKeepExchanges must be/],
    [{ trigger: 1 }, "trigger", /trigger is not a policy field/],
  ])("refuses %j naming %s", (input, field, message) => {
    let thrown: unknown;
    try {
      validateOrgPolicy(input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidOptionError);
    expect((thrown as InvalidOptionError).field).toBe(field);
    expect((thrown as Error).message).toMatch(message);
  });

  it.each([
    [{ exclude: "run_sql" }, "toolRules.exclude", /must be an array of tool names/],
    [{ include: ["a", ""] }, "toolRules.include[1]", /must be a non-empty tool name/],
    [{ protectedArgs: [{ arg: "path", pattern: "(" }] }, "toolRules.protectedArgs[0].pattern", /not a valid/],
    [
      {
        protectedArgs: [
          { arg: "path", pattern: "^/pinned/" },
          { arg: "id", pattern: "^(\\w+)-\\1$" },
        ],
      },
      "toolRules.protectedArgs[1].pattern",
      /has a backreference or octal escape "\\1" at 7: .* matched in linear time/,
    ],
    [
      { protectedArgs: [{ arg: "path", pattern: "^(?!/tmp/)" }] },
      "toolRules.protectedArgs[0].pattern",
      /has a lookaround at 1/,
    ],
    [
      { protectedArgs: [{ arg: "path", pattern: "(?:/pinned/[a-z]+){60}" }] },
      "toolRules.protectedArgs[0].pattern",
      /compiles to 721 instructions, over the 256/,
    ],
    [
      {
        protectedArgs: Array.from({ length: 5 }, () => ({ arg: "path", pattern: "(?:/pinned/[a-z]+){20}" })),
      },
      "toolRules.protectedArgs",
      /compile to 1205 instructions together, over the 1024/,
    ],
    [{ protectedArgs: [{ arg: "", pattern: "x" }] }, "toolRules.protectedArgs[0].arg", /non-empty argument/],
    [
      { protectedArgs: [{ arg: "a", pattern: "x", tool: "t" }] },
      "toolRules.protectedArgs[0].tool",
      /not a known/,
    ],
    [{ neverCondense: ["save_memory"], pinned: [] }, "toolRules.pinned", /not a known field/],
  ])("refuses tool rules %j naming %s", (toolRules, field, message) => {
    let thrown: unknown;
    try {
      validateOrgPolicy({ toolRules });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InvalidToolPolicyError);
    expect((thrown as InvalidToolPolicyError).field).toBe(field);
    expect((thrown as Error).message).toMatch(message);
  });

  it("the deployment's rules are validated the same way, under `rules`", () => {
    expect(() => createToolPolicy({ rules: { exclude: [1 as unknown as string] } })).toThrow(
      /rules\.exclude\[0\] must be a non-empty tool name/,
    );
  });
});

describe("assembly under an org's mode", () => {
  afterEach(() => {
    delete process.env.CONTEXT_CLEANER_DISABLED;
  });

  it("on (and no policy) cleans", () => {
    const none = assembleUnder(undefined);
    const on = assembleUnder({ mode: "on" });
    expect(on.messages).toEqual(none.messages);
    expect(JSON.stringify(on.messages)).not.toBe(JSON.stringify(thread()));
    expect(on.report.mode).toBe("on");
    expect(on.report.substitutions).toBe(3);
    expect(on.report.shadow).toBeUndefined();
  });

  it("off returns byte for byte what the kill switch returns", () => {
    const off = assembleUnder({ mode: "off" });
    process.env.CONTEXT_CLEANER_DISABLED = "1";
    const messages = thread();
    const killed = assembleModelView(messages, digests());
    expect(JSON.stringify(off.messages)).toBe(JSON.stringify(killed.messages));
    expect(off.report).toEqual(killed.report);
    expect(off.report).toMatchObject({ disabled: true, mode: "off", substitutions: 0, charsSaved: 0 });
    expect(JSON.stringify(off.messages)).toBe(JSON.stringify(thread()));
  });

  it("shadow sends exactly what off sends, and reports what the cleaned view would have saved", () => {
    const off = assembleUnder({ mode: "off" });
    const shadow = assembleUnder({ mode: "shadow" });
    const on = assembleUnder({ mode: "on" });
    expect(JSON.stringify(shadow.messages)).toBe(JSON.stringify(off.messages));
    // `disabled`: the view sent is the backstop's alone, so adapters treat it as off's (no breakpoints, no refund).
    expect(shadow.report).toMatchObject({ disabled: true, mode: "shadow", substitutions: 0 });
    expect(shadow.report.assembledChars).toBe(off.report.assembledChars);
    const { disabled: _d, mode: _m, ...onFigures } = on.report;
    const {
      keptFigures: _k,
      keptFigureCount: _c,
      keptFiguresComplete: _r,
      ...shadowFigures
    } = shadow.report.shadow ?? {};
    expect(shadowFigures).toEqual({
      ...onFigures,
      wouldSaveChars: off.report.assembledChars - on.report.assembledChars,
    });
    expect(shadow.report.shadow?.wouldSaveChars).toBeGreaterThan(0);
    expect(shadow.report.shadow?.ledger.entries.map((entry) => entry.toolCallId)).toEqual(["r1", "r2", "f1"]);
    // The callback gets the report that carries the shadow figures.
    expect(shadow.reports).toEqual([shadow.report]);
  });

  it("shadow under a cache context sends what off sends too", () => {
    const cache = { turnStart: true, idleMs: 10, shown: ["r1"] };
    const off = assembleUnder({ mode: "off" }, { cache });
    const shadow = assembleUnder({ mode: "shadow" }, { cache });
    expect(JSON.stringify(shadow.messages)).toBe(JSON.stringify(off.messages));
    expect(shadow.report.ledger).toEqual(off.report.ledger);
  });

  it("the kill switch wins over an org's on or shadow", () => {
    process.env.CONTEXT_CLEANER_DISABLED = "1";
    const messages = thread();
    const shadow = assembleModelView(messages, digests(), {
      orgPolicy: validateOrgPolicy({ mode: "shadow" }),
    });
    expect(shadow.report).toMatchObject({ disabled: true, mode: "off" });
    expect(shadow.report.shadow).toBeUndefined();
  });

  it("an org's recencyKeepExchanges overrides the deployment's", () => {
    const wide = assembleUnder({ recencyKeepExchanges: 8 }, { recencyKeepExchanges: 3 });
    expect(wide.report.substitutions).toBe(0);
    const narrow = assembleUnder({ mode: "on" }, { recencyKeepExchanges: 3 });
    expect(narrow.report.substitutions).toBe(3);
  });
});

describe("shadow: the figures the cleaned view would have kept", () => {
  const FIGURES = ["$1,250,000", "7.5%", "thirty (30) days"];
  const page = (n: number, figures: readonly string[]) =>
    `${documentPage("lease_445", n, 2_500)} The terms that matter: ${figures.join("; ")}. ${documentPage("lease_445", n, 2_500)}`;
  const digestOf = (n: number, figures: readonly string[]) =>
    `${DIGEST_HEADER}\ntool: read_document\nsource: lease_445 page ${n}\ndigest:\n${figures.map((figure) => `  - ${figure}`).join("\n")}`;
  /** One page read per figure list, each with a digest carrying its figures, before a recency wall of searches. */
  function pagesThread(pages: readonly (readonly string[])[]) {
    const messages: Message[] = [
      systemMessage(),
      userMessage("Review the lease."),
      ...pages.flatMap((figures, index) =>
        toolExchange(
          `r${index + 1}`,
          "read_document",
          { file_id: "lease_445", offset: index * 5_000 },
          page(index + 1, figures),
        ),
      ),
      ...["w1", "w2", "w3"].flatMap((id) =>
        toolExchange(id, "web_search", { q: id }, `id: https://example.com/${id}`),
      ),
      userMessage("Draft the memo."),
    ];
    const rows = new Map(
      pages.map((figures, index) => [
        `r${index + 1}`,
        digestFor(page(index + 1, figures), digestOf(index + 1, figures)),
      ]),
    );
    return { messages, rows };
  }
  const under = (mode: "on" | "off" | "shadow", pages: readonly (readonly string[])[], budget?: number) => {
    const { messages, rows } = pagesThread(pages);
    return assembleModelView(messages, rows, {
      disabled: false,
      orgPolicy: validateOrgPolicy({ mode }),
      ...(budget === undefined ? {} : { historyBudgetChars: budget }),
    });
  };
  const text = (view: { messages: Message[] }) =>
    view.messages.map((message) => contentText(message.content)).join("\n");
  const PAGES = FIGURES.map((figure) => [figure]);

  it("lists the figures the backstop cut from the view sent that the cleaned view keeps, with their results", () => {
    const off = under("off", PAGES, 6_000);
    const on = under("on", PAGES, 6_000);
    const shadow = under("shadow", PAGES, 6_000);
    expect(JSON.stringify(shadow.messages)).toBe(JSON.stringify(off.messages));
    expect(off.report.compaction.fired).toBe(true);
    for (const figure of FIGURES) {
      expect(text(off)).not.toContain(figure);
      expect(text(on)).toContain(figure);
    }
    expect(shadow.report.shadow?.keptFigures).toEqual(
      FIGURES.map((figure, index) => ({ figure, toolCallId: `r${index + 1}` })),
    );
    expect(shadow.report.shadow?.keptFigureCount).toBe(3);
  });

  it("lists none when the view sent holds every figure (nothing cut)", () => {
    const shadow = under("shadow", PAGES);
    expect(shadow.report.compaction.fired).toBe(false);
    expect(shadow.report.shadow).toMatchObject({ keptFigures: [], keptFigureCount: 0 });
  });

  it("bounds the list and counts every distinct figure", () => {
    const many = Array.from(
      { length: 30 },
      (_, index) => `$${((index + 1) * 1_000_000).toLocaleString("en-US")}`,
    );
    const shadow = under("shadow", [many.slice(0, 15), many.slice(10)], 6_000);
    expect(shadow.report.shadow?.keptFigureCount).toBe(30);
    expect(shadow.report.shadow?.keptFigures).toHaveLength(SHADOW_KEPT_FIGURES_LIMIT);
    expect(shadow.report.shadow?.keptFigures.slice(0, 16)).toEqual([
      ...many.slice(0, 15).map((figure) => ({ figure, toolCallId: "r1" })),
      { figure: many[15], toolCallId: "r2" },
    ]);
  });

  it("on and off carry no shadow report", () => {
    expect(under("on", PAGES, 6_000).report.shadow).toBeUndefined();
    expect(under("off", PAGES, 6_000).report.shadow).toBeUndefined();
  });
});

describe("per-tool rules through assembly", () => {
  const condensedUnder = (policy: OrgPolicyInput | undefined, rules?: object) => {
    const view = assembleUnder(policy, rules ? { policy: { rules } } : {});
    return view.report.ledger.entries.map((entry) => entry.toolCallId);
  };

  it("nothing protected: every matched result is condensed", () => {
    expect(condensedUnder(undefined)).toEqual(["r1", "r2", "f1"]);
  });

  it("an exclude list keeps its tools raw", () => {
    expect(condensedUnder({ toolRules: { exclude: ["read_file"] } })).toEqual(["r1", "r2"]);
  });

  it("an include list keeps every other tool raw", () => {
    expect(condensedUnder({ toolRules: { include: ["read_file"] } })).toEqual(["f1"]);
  });

  it("never-condense wins over include", () => {
    expect(condensedUnder({ toolRules: { include: ["read_file"], neverCondense: ["read_file"] } })).toEqual(
      [],
    );
  });

  it("an argument pattern protects the results of calls it matches", () => {
    expect(condensedUnder({ toolRules: { protectedArgs: [{ arg: "path", pattern: "^/pinned/" }] } })).toEqual(
      ["r1", "r2"],
    );
    expect(
      condensedUnder({
        toolRules: { protectedArgs: [{ arg: "offset", pattern: "^5000$", tools: ["read_document"] }] },
      }),
    ).toEqual(["r1", "f1"]);
    // Scoped to another tool, the pattern protects nothing here.
    expect(
      condensedUnder({
        toolRules: { protectedArgs: [{ arg: "offset", pattern: "^5000$", tools: ["read_file"] }] },
      }),
    ).toEqual(["r1", "r2", "f1"]);
  });

  it("a pattern that backtracks catastrophically in RegExp is accepted and matched in linear time", () => {
    // `^([a-z0-9]+-?)+-pinned$` against this path made RegExp take about 35 s.
    const toolRules = { protectedArgs: [{ arg: "path", pattern: "^([a-z0-9]+-?)+-pinned$" }] };
    const rules = withToolRules(createToolPolicy(), toolRules).rules;
    const counter = { steps: 0 };
    const [protectedArg] = rules.protectedArgs;
    expect(protectedArg?.pattern.test("leaseagreementpurple2020xy-pinned.pdf", counter)).toBe(false);
    expect(counter.steps).toBeLessThan(2 * (protectedArg?.pattern.programSize ?? 0) * 40);
    expect(condensedUnder({ toolRules })).toEqual(["r1", "r2", "f1"]);
  });

  it("an argument pattern reads the first 4,096 chars of the value only", () => {
    const toolRules = { protectedArgs: [{ arg: "path", pattern: "notes\\.md$" }] };
    const policy = withToolRules(createToolPolicy(), toolRules);
    expect(policy.protects("read_file", { path: "/pinned/notes.md" })).toBe(true);
    expect(policy.protects("read_file", { path: `/${"d/".repeat(2_043)}notes.md` })).toBe(true);
    expect(policy.protects("read_file", { path: `/${"d/".repeat(2_044)}notes.md` })).toBe(false);
  });

  it("the deployment's rules and the org's add up: an org only adds protection", () => {
    expect(
      condensedUnder({ toolRules: { exclude: ["read_file"] } }, { include: ["read_file", "read_document"] }),
    ).toEqual(["r1", "r2"]);
    // Both include lists: only tools in both may be condensed.
    expect(condensedUnder({ toolRules: { include: ["read_document"] } }, { include: ["read_file"] })).toEqual(
      [],
    );
    expect(condensedUnder(undefined, { exclude: ["read_document"] })).toEqual(["f1"]);
  });

  it("layering the same rules twice gives the same policy object (its caches stay warm)", () => {
    const base = createToolPolicy();
    const rules = { exclude: ["read_file"] };
    expect(withToolRules(base, rules)).toBe(withToolRules(base, { exclude: ["read_file"] }));
    expect(withToolRules(base, rules)).not.toBe(withToolRules(base, { exclude: ["search"] }));
    expect(withToolRules(base, undefined)).toBe(base);
  });
});

describe("the budget refund under an org's mode", () => {
  it("is on under on, off under off and shadow (the view sent is the raw one)", () => {
    const messages = thread();
    const under = (mode: "on" | "off" | "shadow") =>
      effectiveToolChars(messages, digests(), { disabled: false, orgPolicy: validateOrgPolicy({ mode }) });
    const on = under("on");
    expect(on.refundActive).toBe(true);
    expect(on.refundedChars).toBeGreaterThan(0);
    for (const mode of ["off", "shadow"] as const) {
      expect(under(mode)).toEqual({
        effectiveChars: on.rawChars,
        rawChars: on.rawChars,
        refundedChars: 0,
        refundActive: false,
      });
    }
  });

  it("takes the turn state where the digests go, its policy as orgPolicy", () => {
    const messages = thread();
    const state = (mode: "on" | "shadow") => ({ digests: digests(), policy: validateOrgPolicy({ mode }) });
    const on = effectiveToolChars(messages, state("on"), { disabled: false });
    expect(on).toEqual(effectiveToolChars(messages, digests(), { disabled: false }));
    expect(on.refundedChars).toBeGreaterThan(0);
    expect(effectiveToolChars(messages, state("shadow"), { disabled: false })).toMatchObject({
      refundedChars: 0,
      refundActive: false,
    });
    const explicit = effectiveToolChars(messages, state("shadow"), {
      disabled: false,
      orgPolicy: validateOrgPolicy({ mode: "on" }),
    });
    expect(explicit.refundedChars).toBe(on.refundedChars);
  });

  it("counts an org's protected tools raw, as the view shows them", () => {
    const messages = thread();
    const all = effectiveToolChars(messages, digests(), { disabled: false });
    const kept = effectiveToolChars(messages, digests(), {
      disabled: false,
      orgPolicy: validateOrgPolicy({ toolRules: { exclude: ["read_file"] } }),
    });
    expect(all.refundedChars - kept.refundedChars).toBe(
      NOTES.length - (digests().get("f1")?.digestChars ?? 0),
    );
  });
});
