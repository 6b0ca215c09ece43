import type { Message } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { type CallCache, costFloor, costUnits, notCachedChars, PromptCacheModel } from "./cache-cost";
import { TARIFFS } from "./cache-prices";

// One char per token and small thresholds, so every figure below is checked by hand.
const SETTINGS = {
  charsPerToken: 1,
  minCacheableTokens: 100,
  lookbackBlocks: 2,
  openaiMinTokens: 100,
  openaiStepTokens: 10,
} as const;

const user = (chars: number, fill = "x"): Message => ({ role: "user", content: fill.repeat(chars) });

describe("PromptCacheModel, Anthropic breakpoints", () => {
  it("writes the first call whole and reads the previous call's end once the view only grew", () => {
    const model = new PromptCacheModel(SETTINGS);
    const first = [user(100), user(50)];
    expect(model.call(first).anthropic).toEqual({
      readChars: 0,
      writeChars: 150,
      uncachedChars: 0,
      breakpoints: [2],
    });
    expect(model.call([...first, user(30)]).anthropic).toEqual({
      readChars: 150,
      writeChars: 30,
      uncachedChars: 0,
      breakpoints: [2, 3],
    });
  });

  it("reads an earlier stable-prefix breakpoint after a change right behind it", () => {
    const model = new PromptCacheModel(SETTINGS);
    const head = user(100);
    model.call([head, user(50)]);
    // Changed second message: the stable prefix is the head, never written as an entry yet.
    const changed = [head, user(50, "y"), user(30)];
    expect(model.call(changed).anthropic).toEqual({
      readChars: 0,
      writeChars: 180,
      uncachedChars: 0,
      breakpoints: [1, 3],
    });
    // The call above wrote an entry at its stable prefix (the head): the next change reads it.
    expect(model.call([head, user(60, "z")]).anthropic).toEqual({
      readChars: 100,
      writeChars: 60,
      uncachedChars: 0,
      breakpoints: [1, 2],
    });
  });

  it("finds no entry further back than the lookback from the request's breakpoints", () => {
    const model = new PromptCacheModel(SETTINGS);
    const pages = [user(100, "a"), user(100, "b"), user(100, "c"), user(100, "d"), user(100, "e")];
    model.call([...pages.slice(0, 2)]); // entry at 2 messages
    model.call([...pages, user(100, "f")]); // entries at 2 (read) and 6
    // Sixth message changed: the breakpoint at 5 looks back to 3, the end (6) to 4; the entry at 2 is out of reach.
    const anthropic = model.call([...pages, user(100, "g")]).anthropic;
    expect(anthropic).toEqual({ readChars: 0, writeChars: 600, uncachedChars: 0, breakpoints: [5, 6] });
  });

  it("neither reads nor writes a prefix shorter than the minimum", () => {
    const model = new PromptCacheModel(SETTINGS);
    const short = user(50);
    expect(model.call([short]).anthropic).toEqual({
      readChars: 0,
      writeChars: 0,
      uncachedChars: 50,
      breakpoints: [1],
    });
    // The stable prefix (50 chars) is too short to cache; the end (110) is written whole.
    expect(model.call([short, user(60)]).anthropic).toEqual({
      readChars: 0,
      writeChars: 110,
      uncachedChars: 0,
      breakpoints: [1, 2],
    });
  });

  it("reads nothing after expire(), though the stable prefix is still placed", () => {
    const model = new PromptCacheModel(SETTINGS);
    const first = [user(100), user(50)];
    model.call(first);
    model.expire();
    const call = model.call([...first, user(30)]);
    expect(call.anthropic).toEqual({ readChars: 0, writeChars: 180, uncachedChars: 0, breakpoints: [2, 3] });
    expect(call.openai).toEqual({ cachedChars: 0, uncachedChars: 180 });
  });

  it("never places a breakpoint on the latest assistant message, as the adapter does", () => {
    const model = new PromptCacheModel(SETTINGS);
    const head = user(100);
    const reply: Message = { role: "assistant", content: "r".repeat(40) };
    model.call([head, reply, user(50)]);
    // The stable prefix ends on the latest assistant message: its breakpoint goes on the message before it.
    expect(model.call([head, reply, user(60, "y")]).anthropic).toEqual({
      readChars: 0,
      writeChars: 200,
      uncachedChars: 0,
      breakpoints: [1, 3],
    });
    // A request ending on the latest assistant message (a paused turn): its end breakpoint goes
    // before it, on the head the call above wrote.
    expect(model.call([head, reply]).anthropic).toEqual({
      readChars: 100,
      writeChars: 0,
      uncachedChars: 40,
      breakpoints: [1],
    });
  });

  it("treats equal bytes in new message objects as the same prefix", () => {
    const model = new PromptCacheModel(SETTINGS);
    model.call([user(100), user(50)]);
    expect(model.call([user(100), user(50), user(10)]).anthropic.readChars).toBe(150);
  });
});

describe("PromptCacheModel, OpenAI automatic prefix", () => {
  it("reads the longest prefix shared with any earlier request, in steps past the minimum", () => {
    const model = new PromptCacheModel(SETTINGS);
    const head = user(100);
    expect(model.call([head, user(55)]).openai).toEqual({ cachedChars: 0, uncachedChars: 155 });
    // 155 tokens shared: 100 + 5 whole steps of 10.
    expect(model.call([head, user(55), user(30)]).openai).toEqual({ cachedChars: 150, uncachedChars: 35 });
    // A change after the head: the head (100 tokens) is still shared with both earlier requests.
    expect(model.call([head, user(20, "y")]).openai).toEqual({ cachedChars: 100, uncachedChars: 20 });
  });

  it("caches nothing under the minimum", () => {
    const model = new PromptCacheModel(SETTINGS);
    model.call([user(99)]);
    expect(model.call([user(99), user(10)]).openai).toEqual({ cachedChars: 0, uncachedChars: 109 });
  });

  it("reads past an Anthropic lookback miss: every earlier prefix counts", () => {
    const model = new PromptCacheModel(SETTINGS);
    const pages = [user(100, "a"), user(100, "b"), user(100, "c"), user(100, "d"), user(100, "e")];
    model.call([...pages, user(100, "f")]);
    expect(model.call([...pages, user(100, "g")]).openai).toEqual({ cachedChars: 500, uncachedChars: 100 });
  });
});

describe("costUnits and notCachedChars", () => {
  const calls: CallCache[] = [
    {
      chars: 1_000,
      anthropic: { readChars: 600, writeChars: 320, uncachedChars: 80, breakpoints: [3, 4] },
      openai: { cachedChars: 512, uncachedChars: 488 },
    },
    {
      chars: 400,
      anthropic: { readChars: 0, writeChars: 400, uncachedChars: 0, breakpoints: [2] },
      openai: { cachedChars: 0, uncachedChars: 400 },
    },
  ];
  const tariff = (id: string) => TARIFFS.find((candidate) => candidate.id === id) as (typeof TARIFFS)[number];

  it("prices Anthropic reads at 0.1×, writes at 1.25× (5-minute) or 2× (1-hour), the rest at 1×, per 4 chars", () => {
    // (600 × 0.1 + 320 × 1.25 + 80 + 400 × 1.25) / 4 = (60 + 400 + 80 + 500) / 4
    expect(costUnits(calls, tariff("anthropic-5m"))).toBeCloseTo(260, 10);
    // (60 + 640 + 80 + 800) / 4
    expect(costUnits(calls, tariff("anthropic-1h"))).toBeCloseTo(395, 10);
  });

  it("prices OpenAI cached input at the model's fraction, with no write premium", () => {
    // (512 × 0.5 + 488 + 400) / 4
    expect(costUnits(calls, tariff("openai-gpt-4o"))).toBeCloseTo(286, 10);
    // (512 × 0.25 + 888) / 4
    expect(costUnits(calls, tariff("openai-gpt-4.1"))).toBeCloseTo(254, 10);
  });

  it("counts the chars not read from the cache", () => {
    expect(notCachedChars(calls, "anthropic")).toBe(800);
    expect(notCachedChars(calls, "openai")).toBe(888);
  });
});

describe("costFloor", () => {
  const tariff = (id: string) => TARIFFS.find((candidate) => candidate.id === id) as (typeof TARIFFS)[number];
  const thread = [user(400), { role: "assistant", content: "y".repeat(200) } as Message, user(600)];

  it("prices every message once at the tariff's write price: 1.25× or 2× on Anthropic, 1× on OpenAI", () => {
    // 1,200 chars / 4 = 300 tokens.
    expect(costFloor(thread, tariff("anthropic-5m"))).toBeCloseTo(375, 10);
    expect(costFloor(thread, tariff("anthropic-1h"))).toBeCloseTo(600, 10);
    for (const id of ["openai-gpt-4o", "openai-gpt-4.1", "openai-gpt-5"]) {
      expect(costFloor(thread, tariff(id))).toBeCloseTo(300, 10);
    }
  });

  it("is below what the whole thread costs sent as a growing prompt, call after call, under every tariff", () => {
    const model = new PromptCacheModel(SETTINGS);
    const pages = Array.from({ length: 8 }, (_, index) => user(150, String.fromCharCode(97 + index)));
    const calls = pages.map((_, index) => model.call(pages.slice(0, index + 1)));
    for (const candidate of TARIFFS) {
      const floor = costFloor(pages, candidate, 1);
      expect(floor).toBeGreaterThan(0);
      expect(costUnits(calls, candidate, 1)).toBeGreaterThan(floor);
    }
  });
});
