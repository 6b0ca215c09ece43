import type { Message, ToolMessage } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { cacheBreak, ProbeIndex, samePromptMessage, viewChars, viewParts } from "./view-measures";

const call = (id: string, offset: number): Message => ({
  role: "assistant",
  content: "",
  toolCalls: [{ id, name: "read_document", args: { file_id: "cd_1", offset } }],
});
const result = (id: string, content: string): ToolMessage => ({
  role: "tool",
  toolCallId: id,
  toolName: "read_document",
  content,
});

const thread: Message[] = [
  { role: "user", content: "read" },
  call("a", 0),
  result("a", "Base Rent is\n$1,200,000 per year."),
  call("b", 100),
  result("b", "The deposit is $50,000."),
  call("c", 200),
  result("c", "The cap is $9,000,000."),
];
const probes = [
  { answer: "Base Rent is $1,200,000", toolCallId: "a" },
  { answer: "$50,000", toolCallId: "b" },
  { answer: "$9,000,000", toolCallId: "c" },
];
const everything = new Set(["a", "b", "c"]);

describe("ProbeIndex.retention", () => {
  it("counts an answer in the view strictly, whitespace-normalised", () => {
    expect(new ProbeIndex(thread, probes).retention(thread, everything)).toEqual({
      total: 3,
      strict: 3,
      recoverable: 3,
    });
  });

  it("counts a lost answer as recoverable when the view keeps its call, or a digest's re-read line names it", () => {
    const view: Message[] = [
      thread[0] as Message,
      call("a", 0),
      result("a", "[cleared]"),
      { role: "user", content: 're-read: read_document(file_id="cd_1", offset=100)' },
      call("c", 200),
      result("c", "The cap is $9,000,000."),
    ];
    expect(new ProbeIndex(thread, probes).retention(view, everything)).toEqual({
      total: 3,
      strict: 1,
      recoverable: 3,
    });
  });

  it("loses a probe whose answer, call and re-read line are all gone; a call with other args does not count", () => {
    const view: Message[] = [thread[0] as Message, call("x", 999), result("x", "unrelated")];
    expect(new ProbeIndex(thread, probes).retention(view, everything)).toEqual({
      total: 3,
      strict: 0,
      recoverable: 0,
    });
  });

  it("counts only probes whose result has arrived", () => {
    expect(new ProbeIndex(thread, probes).retention(thread, new Set(["a"]))).toEqual({
      total: 1,
      strict: 1,
      recoverable: 1,
    });
  });
});

describe("ProbeIndex.missed", () => {
  it("names each probe not verbatim in the view: cut before the view, condensed in it or absent, and whether a handle is in view", () => {
    const prompt: Message[] = [...thread.slice(0, 4), result("b", "[cut by the budget]"), ...thread.slice(5)];
    const view: Message[] = [
      thread[0] as Message,
      call("a", 0),
      result("a", "Base Rent is $1,200,000 per year."),
      call("b", 100),
      result("b", "[cut by the budget]"),
      { role: "user", content: "the cap was mentioned" },
    ];
    expect(new ProbeIndex(thread, probes).missed(view, prompt, everything)).toEqual([
      { toolCallId: "b", answer: "$50,000", result: "cut", handle: true },
      { toolCallId: "c", answer: "$9,000,000", result: "absent", handle: false },
    ]);
    const condensed: Message[] = [...thread.slice(0, 2), result("a", "a digest without the figure")];
    expect(new ProbeIndex(thread, probes).missed(condensed, thread, new Set(["a"]))).toEqual([
      { toolCallId: "a", answer: "Base Rent is $1,200,000", result: "condensed", handle: true },
    ]);
    expect(new ProbeIndex(thread, probes).missed(thread, thread, everything)).toEqual([]);
  });
});

describe("viewParts", () => {
  it("splits a view's chars into results as given, results shown otherwise, and the conversation", () => {
    const view: Message[] = [...thread.slice(0, 4), result("b", "[digest of b]"), call("c", 200)];
    const chars = (message: Message) => viewChars([message]);
    expect(viewParts(view, thread)).toEqual({
      resultsAsGiven: chars(thread[2] as Message),
      resultsCondensed: chars(result("b", "[digest of b]")),
      conversation:
        chars(thread[0] as Message) + chars(call("a", 0)) + chars(call("b", 100)) + chars(call("c", 200)),
    });
    expect(viewParts(thread, thread).resultsCondensed).toBe(0);
  });
});

describe("ProbeIndex.held", () => {
  it("says, per probe of the given results, whether its answer, a digest or stand-in, and a re-read handle are in the view", () => {
    const view: Message[] = [
      thread[0] as Message,
      call("a", 0),
      result("a", "Digest: Base Rent is $1,200,000 (re-read the page)"),
      call("b", 100),
      result("b", "[cleared]"),
      { role: "user", content: "next" },
    ];
    // a: verbatim in its digest, call kept; b: a placeholder, call kept; c: call and result gone.
    expect(new ProbeIndex(thread, probes).held(view, thread, everything)).toEqual({
      total: 3,
      strict: 1,
      standIn: 2,
      handle: 2,
      lost: 1,
    });
  });

  it("counts a re-read line as a handle, compares a result with the prompt's (not the thread's), and only the given results", () => {
    const prompt = [...thread.slice(0, 6), result("c", "The cap is [cut to 20 chars]")];
    const view: Message[] = [
      { role: "user", content: 're-read: read_document(file_id="cd_1", offset=100)' },
      call("c", 200),
      result("c", "The   cap is [cut to 20 chars]"),
    ];
    expect(new ProbeIndex(thread, probes).held(view, prompt, new Set(["b", "c"]))).toEqual({
      total: 2,
      strict: 0,
      standIn: 0,
      handle: 2,
      lost: 0,
    });
  });
});

describe("cacheBreak", () => {
  it("is no break when the new view only appends to the previous one, even with equal copies", () => {
    const next = [...thread.slice(0, 3).map((message) => ({ ...message })), ...thread.slice(3)];
    expect(cacheBreak(thread.slice(0, 3), next)).toEqual({
      broken: false,
      invalidatedMessages: 0,
      invalidatedChars: 0,
    });
  });

  it("breaks from the first earlier message whose bytes changed, and counts what follows it", () => {
    const next = [...thread];
    next[2] = result("a", "[digest of page a]");
    const broken = cacheBreak(thread, next);
    expect(broken.broken).toBe(true);
    expect(broken.invalidatedMessages).toBe(thread.length - 2);
    expect(broken.invalidatedChars).toBe(viewChars(thread.slice(2)));
  });

  it("breaks when an earlier message goes away (drop-oldest shifts the prefix)", () => {
    expect(cacheBreak(thread, [thread[0] as Message, ...thread.slice(3)]).broken).toBe(true);
  });
});

describe("samePromptMessage", () => {
  it("compares role, content, tool calls and the result's id and status", () => {
    expect(samePromptMessage(call("a", 0), call("a", 0))).toBe(true);
    expect(samePromptMessage(call("a", 0), call("a", 1))).toBe(false);
    expect(samePromptMessage(result("a", "x"), { ...result("a", "x"), status: "error" })).toBe(false);
    expect(samePromptMessage(result("a", "x"), { role: "user", content: "x" })).toBe(false);
  });
});
