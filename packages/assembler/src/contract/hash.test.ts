import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ContentBlock, ToolCall, ToolMessage } from "../types";
import { canonicalArgs, canonicalJson, contentSha256, messageContentSha256 } from "./hash";

const SHA256_ABC = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

describe("canonicalJson", () => {
  it("gives the same string whatever the key order, at every depth", () => {
    const a = { file_id: "cd_9f2", options: { b: 2, a: [1, { y: 1, x: 2 }] }, offset: 0 };
    const b = { offset: 0, options: { a: [1, { x: 2, y: 1 }], b: 2 }, file_id: "cd_9f2" };
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(canonicalJson(a)).toBe('{"file_id":"cd_9f2","offset":0,"options":{"a":[1,{"x":2,"y":1}],"b":2}}');
  });

  it("drops undefined object values and writes undefined array items as null, like JSON", () => {
    expect(canonicalJson({ a: 1, b: undefined })).toBe(canonicalJson({ a: 1 }));
    expect(canonicalJson([1, undefined, 3])).toBe("[1,null,3]");
    expect(canonicalJson(undefined)).toBe("null");
  });

  it("keeps distinct values distinct", () => {
    expect(canonicalJson({ offset: 0 })).not.toBe(canonicalJson({ offset: "0" }));
    expect(canonicalJson([1, 2])).not.toBe(canonicalJson([2, 1]));
  });
  it("writes every value as the plain sort-then-join definition does (the hash of block content depends on it)", () => {
    const reference = (value: unknown): string => {
      if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
      if (Array.isArray(value))
        return `[${value.map((item) => reference(item === undefined ? null : item)).join(",")}]`;
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record)
        .filter((key) => record[key] !== undefined)
        .sort();
      return `{${keys.map((key) => `${JSON.stringify(key)}:${reference(record[key])}`).join(",")}}`;
    };
    const value = fc.anything({
      withBoxedValues: true,
      withDate: true,
      withNullPrototype: true,
      withObjectString: true,
      withSparseArray: true,
    });
    fc.assert(
      fc.property(value, (anything) => {
        expect(canonicalJson(anything)).toBe(reference(anything));
      }),
      { numRuns: 2_000 },
    );
    // Flat args in key order are written natively: the same text.
    expect(canonicalJson({ "10": 1, "9": 2, a: -0, b: Number.NaN, c: "\uD800" })).toBe(
      reference({ "10": 1, "9": 2, a: -0, b: Number.NaN, c: "\uD800" }),
    );
  });
});

describe("contentSha256", () => {
  it("hashes a string as its UTF-8 bytes", () => {
    expect(contentSha256("abc")).toBe(SHA256_ABC);
    expect(contentSha256("§ 8.3 — €")).toMatch(/^[0-9a-f]{64}$/);
  });

  it("tells lone surrogates apart from each other and from U+FFFD", () => {
    const hashes = ["x\uD83D", "x\uDE00", "x\uFFFD", "x\uDE00\uD83D", "x\uD83D\uD83D"].map((text) =>
      contentSha256(text),
    );
    expect(new Set(hashes).size).toBe(hashes.length);
    expect(contentSha256([{ type: "text", text: "x\uD83D" }])).not.toBe(
      contentSha256([{ type: "text", text: "x\uFFFD" }]),
    );
  });

  it("keeps the UTF-8 hash of well-formed text, surrogate pairs included", () => {
    for (const text of ["", "abc", "§ 8.3 — €", "rent 😀 due", "\uFFFD"]) {
      expect(contentSha256(text)).toBe(createHash("sha256").update(Buffer.from(text, "utf8")).digest("hex"));
    }
  });

  it("hashes a lone surrogate as its three WTF-8 bytes, and the text around it as UTF-8", () => {
    const sha256Of = (...bytes: number[]) =>
      createHash("sha256").update(Uint8Array.from(bytes)).digest("hex");
    expect(contentSha256("ab\uD800")).toBe(sha256Of(0x61, 0x62, 0xed, 0xa0, 0x80));
    expect(contentSha256("\uDFFFab")).toBe(sha256Of(0xed, 0xbf, 0xbf, 0x61, 0x62));
    expect(contentSha256("a\uD83Db\uDE00c")).toBe(
      sha256Of(0x61, 0xed, 0xa0, 0xbd, 0x62, 0xed, 0xb8, 0x80, 0x63),
    );
    expect(contentSha256("\uDE00\uD83D")).toBe(sha256Of(0xed, 0xb8, 0x80, 0xed, 0xa0, 0xbd));
  });

  it("is injective over strings of any UTF-16 code units", () => {
    // A tiny alphabet of code units (lone and paired surrogates, U+FFFD, ASCII, the bytes
    // ED A0 as Latin-1) so that equal and unequal inputs both come up often.
    const unit = fc.constantFrom("a", "\uD83D", "\uDE00", "\uFFFD", "\u00ED", "\u00A0");
    const text = fc.array(unit, { maxLength: 6 }).map((units) => units.join(""));
    fc.assert(
      fc.property(text, text, (left, right) => {
        expect(contentSha256(left) === contentSha256(right)).toBe(left === right);
      }),
      { numRuns: 2_000 },
    );
  });

  it("hashes blocks as canonical JSON: key order does not matter, text does", () => {
    const blocks: ContentBlock[] = [{ type: "text", text: "abc" }];
    const reordered = [{ text: "abc", type: "text" }] as ContentBlock[];
    expect(contentSha256(blocks)).toBe(contentSha256(reordered));
    expect(contentSha256(blocks)).not.toBe(SHA256_ABC);
    expect(contentSha256(blocks)).not.toBe(contentSha256([{ type: "text", text: "abd" }]));
  });
});

describe("messageContentSha256", () => {
  function tool(content: ToolMessage["content"]): ToolMessage {
    return { role: "tool", toolCallId: "call_1", toolName: "read_document", content };
  }

  it("equals contentSha256 of the message's content", () => {
    expect(messageContentSha256(tool("abc"))).toBe(SHA256_ABC);
  });

  it("hashes each message object once while its blocks are unchanged", () => {
    let reads = 0;
    const image = {
      type: "image",
      get source() {
        reads++;
        return "base64…";
      },
    } as unknown as ContentBlock;
    const message = tool([{ type: "text", text: "abc" }, image]);
    const first = messageContentSha256(message);
    const readsAfterFirst = reads;
    expect(readsAfterFirst).toBeGreaterThan(0);
    expect(messageContentSha256(message)).toBe(first);
    expect(reads).toBe(readsAfterFirst);
  });

  it("re-hashes a block edited in place, so the hash gate sees live content", () => {
    const blocks: ContentBlock[] = [{ type: "text", text: "abc" }];
    const message = tool(blocks);
    const first = messageContentSha256(message);
    (blocks[0] as ContentBlock).text = "changed";
    expect(messageContentSha256(message)).not.toBe(first);
    expect(messageContentSha256(message)).toBe(contentSha256(blocks));
  });

  it("re-hashes when one block among several is edited in place", () => {
    const blocks: ContentBlock[] = [
      { type: "text", text: "page one" },
      { type: "text", text: "page two" },
      { type: "text", text: "page three" },
    ];
    const message = tool(blocks);
    const first = messageContentSha256(message);
    (blocks[2] as ContentBlock).text = "page three, amended";
    expect(messageContentSha256(message)).not.toBe(first);
    expect(messageContentSha256(message)).toBe(contentSha256(blocks));
    blocks[1] = { type: "text", text: "page two" };
    expect(messageContentSha256(message)).toBe(contentSha256(blocks));
  });

  it("re-hashes when `content` is replaced on the same object", () => {
    const message = tool("abc");
    expect(messageContentSha256(message)).toBe(SHA256_ABC);
    message.content = "abd";
    expect(messageContentSha256(message)).toBe(contentSha256("abd"));
  });

  it("re-hashes when blocks are removed from the content array in place", () => {
    const blocks: ContentBlock[] = [
      { type: "text", text: "page one" },
      { type: "text", text: "page two" },
    ];
    const message = tool(blocks);
    const first = messageContentSha256(message);
    blocks.pop();
    expect(messageContentSha256(message)).not.toBe(first);
    expect(messageContentSha256(message)).toBe(contentSha256(blocks));
  });

  it("re-hashes when a block is replaced by another of the same text", () => {
    const blocks = [
      { type: "text", text: "caption" },
      { type: "image", source: "first.png" },
    ] as unknown as ContentBlock[];
    const message = tool(blocks);
    const first = messageContentSha256(message);
    blocks[1] = { type: "image", source: "second.png" } as unknown as ContentBlock;
    expect(messageContentSha256(message)).not.toBe(first);
    expect(messageContentSha256(message)).toBe(contentSha256(blocks));
  });

  it("works on frozen messages", () => {
    const message = Object.freeze(tool("abc"));
    expect(messageContentSha256(message)).toBe(SHA256_ABC);
  });
});

describe("canonicalArgs", () => {
  it("is the canonical JSON of the call's args", () => {
    const call: ToolCall = { id: "c1", name: "read_document", args: { offset: 0, file_id: "cd_9f2" } };
    expect(canonicalArgs(call)).toBe('{"file_id":"cd_9f2","offset":0}');
  });

  it("serializes each call's args once while they are unchanged", () => {
    let reads = 0;
    const args = {
      get file_id() {
        reads++;
        return "cd_9f2";
      },
    };
    const call: ToolCall = { id: "c1", name: "read_document", args };
    const first = canonicalArgs(call);
    const readsAfterFirst = reads;
    expect(readsAfterFirst).toBeGreaterThan(0);
    expect(canonicalArgs(call)).toBe(first);
    expect(reads).toBe(readsAfterFirst);
  });

  it("serializes again when `args` is replaced on the same call object", () => {
    const call: ToolCall = { id: "c1", name: "read_document", args: { file_id: "cd_9f2" } };
    expect(canonicalArgs(call)).toBe('{"file_id":"cd_9f2"}');
    call.args = { file_id: "cd_a11" };
    expect(canonicalArgs(call)).toBe('{"file_id":"cd_a11"}');
  });
});
