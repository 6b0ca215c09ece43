import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decodeUtf8, invalidUtf8Offset, NotUtf8Error } from "./utf8";

/** Runs per property: `PROPERTY_RUNS` when set; otherwise 200 locally and 1,000 in CI (`CI` set). */
const NUM_RUNS = (() => {
  const fromEnvironment = Number(process.env.PROPERTY_RUNS);
  const requested = Number.isInteger(fromEnvironment) && fromEnvironment > 0 ? fromEnvironment : undefined;
  return process.env.CI ? Math.max(1_000, requested ?? 1_000) : (requested ?? 200);
})();

const strict = new TextDecoder("utf-8", { fatal: true });
function decodes(bytes: Uint8Array): boolean {
  try {
    strict.decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** Well-formed UTF-8 text with a few arbitrary bytes spliced in. */
const mostlyText = fc
  .tuple(
    fc.string({ unit: "binary" }),
    fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 3 }),
  )
  .map(([text, splices]) => {
    const bytes = [...Buffer.from(text, "utf8")];
    for (const [at, byte] of splices) bytes.splice(at % (bytes.length + 1), 0, byte);
    return Uint8Array.from(bytes);
  });

describe("invalidUtf8Offset", () => {
  it("is -1 exactly when a fatal TextDecoder accepts the bytes; else everything before it decodes", () => {
    fc.assert(
      fc.property(fc.oneof(mostlyText, fc.uint8Array({ maxLength: 16 })), (bytes) => {
        const offset = invalidUtf8Offset(bytes);
        expect(offset === -1).toBe(decodes(bytes));
        if (offset >= 0) {
          expect(decodes(bytes.subarray(0, offset))).toBe(true);
          // The sequence starting there is ill-formed however it goes on.
          expect(decodes(bytes.subarray(offset))).toBe(false);
        }
      }),
      { numRuns: NUM_RUNS * 5 },
    );
  });

  it.each([
    ["ASCII", [0x61, 0x62], -1],
    ["é, €, 📄", [...Buffer.from("é€📄")], -1],
    ["a Latin-1 é", [0x63, 0xe9, 0x20], 1],
    ["a stray continuation byte", [0x80], 0],
    ["an overlong NUL", [0xc0, 0x80], 0],
    ["an encoded surrogate", [0x61, 0xed, 0xa0, 0x80], 1],
    ["past U+10FFFF", [0xf4, 0x90, 0x80, 0x80], 0],
    ["a sequence cut at the end", [0x61, 0xe2, 0x82], 1],
  ])("%s", (_label, bytes, offset) => {
    expect(invalidUtf8Offset(Uint8Array.from(bytes))).toBe(offset);
  });
});

describe("decodeUtf8", () => {
  it("decodes strictly, dropping a byte order mark, and names the offset of a bad sequence", () => {
    expect(decodeUtf8(Uint8Array.from([0xef, 0xbb, 0xbf, 0x68, 0x69]))).toBe("hi");
    const error = (() => {
      try {
        decodeUtf8(Uint8Array.from([0x68, 0x69, 0xff]));
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(NotUtf8Error);
    expect(error).toMatchObject({
      byteOffset: 2,
      message: "not UTF-8: invalid byte sequence at byte offset 2",
    });
  });
});
