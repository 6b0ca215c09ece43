import { isUtf8 } from "node:buffer";

/**
 * The byte offset of the first ill-formed UTF-8 sequence in `bytes` (where a sequence
 * starts that is not well-formed: a stray continuation byte, an overlong form, an encoded
 * surrogate, a code point past U+10FFFF, or a sequence cut short), or -1 when all of it
 * is well-formed UTF-8: exactly what `new TextDecoder("utf-8", { fatal: true })` accepts.
 */
export function invalidUtf8Offset(bytes: Uint8Array): number {
  if (isUtf8(bytes)) return -1;
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] as number;
    if (lead < 0x80) {
      index++;
      continue;
    }
    const sequence = sequenceOf(lead);
    if (sequence === undefined) return index;
    for (let next = 1; next <= sequence.continuations; next++) {
      const byte = bytes[index + next];
      const [low, high] = next === 1 ? sequence.second : [0x80, 0xbf];
      if (byte === undefined || byte < low || byte > high) return index;
    }
    index += sequence.continuations + 1;
  }
  return -1;
}

/** How many continuation bytes follow a lead byte, and the range its second byte must be in. */
function sequenceOf(lead: number): { continuations: number; second: readonly [number, number] } | undefined {
  if (lead >= 0xc2 && lead <= 0xdf) return { continuations: 1, second: [0x80, 0xbf] };
  if (lead === 0xe0) return { continuations: 2, second: [0xa0, 0xbf] }; // no overlong forms
  if (lead === 0xed) return { continuations: 2, second: [0x80, 0x9f] }; // no surrogates
  if (lead >= 0xe1 && lead <= 0xef) return { continuations: 2, second: [0x80, 0xbf] };
  if (lead === 0xf0) return { continuations: 3, second: [0x90, 0xbf] }; // no overlong forms
  if (lead >= 0xf1 && lead <= 0xf3) return { continuations: 3, second: [0x80, 0xbf] };
  if (lead === 0xf4) return { continuations: 3, second: [0x80, 0x8f] }; // at most U+10FFFF
  return undefined;
}

/** A file's bytes that are not UTF-8, with the offset of the first ill-formed sequence. */
export class NotUtf8Error extends Error {
  readonly byteOffset: number;

  constructor(byteOffset: number) {
    super(`not UTF-8: invalid byte sequence at byte offset ${byteOffset}`);
    this.name = "NotUtf8Error";
    this.byteOffset = byteOffset;
  }
}

/**
 * Decodes UTF-8 strictly (a leading byte order mark is dropped).
 * @throws {NotUtf8Error} naming the byte offset of the first ill-formed sequence.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new NotUtf8Error(Math.max(0, invalidUtf8Offset(bytes)));
  }
}
