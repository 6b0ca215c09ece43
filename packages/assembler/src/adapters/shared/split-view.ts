/**
 * Assembly over provider message formats, where one provider message may stand for
 * several neutral messages (Anthropic tool_result blocks inside a user message, AI SDK
 * tool messages with several tool-result parts). Each adapter splits its messages into
 * pieces; the view is assembled over the pieces and mapped back: a provider message
 * whose pieces all come back untouched is returned as the very same object.
 */
import {
  type AssembledView,
  type AssembleOptions,
  assembleModelView,
  originalOfReplacement,
} from "../../assemble";
import type { DigestsOrTurnState } from "../../org-policy";
import { originalOfStripped } from "../../thread/thinking";
import type { Message } from "../../types";

/** The slot of a piece standing for every block of its message that is not a tool result. */
export const REST_SLOT = -1;

/** One neutral message standing for part of a provider message. */
export interface Piece {
  message: Message;
  /** Which part of the provider message it stands for: a block index, or {@link REST_SLOT}. */
  slot: number;
}

/**
 * What became of one piece in the view: kept as is, dropped by the backstop, replaced by
 * this text, or (an assistant piece) sent without its thinking blocks and reasoning item.
 */
export type PieceFate = "kept" | "dropped" | "stripped" | { replacedBy: string };

/** How a provider format splits into pieces and is rebuilt from them. */
export interface SplitFormat<P> {
  /** The pieces of `message` (at least one), in the order the neutral thread should see them. */
  split(message: P, index: number): readonly Piece[];
  /** The message rebuilt from the fate of each of its slots (called only when a piece changed). */
  rebuild(message: P, fateOf: (slot: number) => PieceFate): P;
  /** A provider message for a message the assembler wrote (the backstop's note, a user message). */
  create(message: Message): P;
}

/** The neutral thread of `messages` under `format`, with the provider message and slot of each piece. */
export function splitThread<P>(
  messages: readonly P[],
  format: Pick<SplitFormat<P>, "split">,
): { neutral: Message[]; origins: Map<Message, { owner: number; slot: number }> } {
  const neutral: Message[] = [];
  const origins = new Map<Message, { owner: number; slot: number }>();
  messages.forEach((message, owner) => {
    for (const piece of format.split(message, owner)) {
      // The same provider object twice in one thread yields the same cached pieces: the
      // second occurrence gets copies, so each piece has one origin.
      const pieceMessage = origins.has(piece.message) ? { ...piece.message } : piece.message;
      origins.set(pieceMessage, { owner, slot: piece.slot });
      neutral.push(pieceMessage);
    }
  });
  return { neutral, origins };
}

/**
 * {@link assembleModelView} over a provider format. Untouched messages come back as the
 * same objects; a message with a replaced or dropped piece is rebuilt by the format; the
 * report counts neutral messages (pieces).
 */
export function assembleSplitView<P>(
  messages: readonly P[],
  format: SplitFormat<P>,
  digests: DigestsOrTurnState | null | undefined,
  options: AssembleOptions | undefined,
): AssembledView<P> {
  return assembleSplitMapped(messages, format, digests, options).view;
}

/** A split view with where its messages come from. */
export interface MappedSplitView<P> {
  view: AssembledView<P>;
  /** Per returned message, the index of the provider message it stands for; undefined for one the assembler wrote. */
  owners: (number | undefined)[];
  /** The neutral thread: the positions the report counts. */
  neutral: Message[];
  /** Per neutral message, the index of its provider message. */
  neutralOwners: number[];
}

/** {@link assembleSplitView}, also mapping the view and the neutral thread back to the provider messages. */
export function assembleSplitMapped<P>(
  messages: readonly P[],
  format: SplitFormat<P>,
  digests: DigestsOrTurnState | null | undefined,
  options: AssembleOptions | undefined,
): MappedSplitView<P> {
  const { neutral, origins } = splitThread(messages, format);
  const view = assembleModelView(neutral, digests, options);

  const kept = new Set<Message>();
  const replaced = new Map<Message, string>();
  const stripped = new Set<Message>();
  const changedOwners = new Set<number>();
  for (const message of view.messages) {
    if (origins.has(message)) {
      kept.add(message);
      continue;
    }
    const withThinking = originalOfStripped(message);
    const strippedOrigin = withThinking === undefined ? undefined : origins.get(withThinking);
    if (withThinking !== undefined && strippedOrigin !== undefined) {
      stripped.add(withThinking);
      changedOwners.add(strippedOrigin.owner);
      continue;
    }
    const original = originalOfReplacement(message);
    const origin = original === undefined ? undefined : origins.get(original);
    if (original !== undefined && origin !== undefined) {
      replaced.set(original, message.content as string);
      changedOwners.add(origin.owner);
    }
  }
  const slotsByOwner = new Map<number, Map<number, Message>>();
  for (const [piece, origin] of origins) {
    if (!kept.has(piece) && !replaced.has(piece) && !stripped.has(piece)) changedOwners.add(origin.owner);
    let slots = slotsByOwner.get(origin.owner);
    if (slots === undefined) {
      slots = new Map();
      slotsByOwner.set(origin.owner, slots);
    }
    slots.set(origin.slot, piece);
  }

  const fateOf =
    (owner: number) =>
    (slot: number): PieceFate => {
      const piece = slotsByOwner.get(owner)?.get(slot);
      if (piece === undefined || kept.has(piece)) return "kept";
      if (stripped.has(piece)) return "stripped";
      const text = replaced.get(piece);
      return text === undefined ? "dropped" : { replacedBy: text };
    };

  const result: P[] = [];
  const owners: (number | undefined)[] = [];
  const emitted = new Set<number>();
  for (const message of view.messages) {
    const origin =
      origins.get(message) ??
      origins.get(originalOfReplacement(message) as Message) ??
      origins.get(originalOfStripped(message) as Message);
    if (origin === undefined) {
      result.push(format.create(message));
      owners.push(undefined);
      continue;
    }
    if (emitted.has(origin.owner)) continue;
    emitted.add(origin.owner);
    const original = messages[origin.owner] as P;
    result.push(changedOwners.has(origin.owner) ? format.rebuild(original, fateOf(origin.owner)) : original);
    owners.push(origin.owner);
  }
  const neutralOwners = neutral.map((piece) => (origins.get(piece) as { owner: number }).owner);
  return { view: { messages: result, report: view.report }, owners, neutral, neutralOwners };
}

/** Whether two cache keys hold the same values, compared by identity. */
export function sameKey(left: readonly unknown[], right: readonly unknown[]): boolean {
  if (left.length !== right.length) return false;
  for (let index = 0; index < left.length; index++) if (left[index] !== right[index]) return false;
  return true;
}

/**
 * Pieces cached per provider message object while the values its key lists are the same
 * (so hashes, cached per piece, are computed once per turn, and in-place edits are seen).
 */
export class PieceCache {
  readonly #entries = new WeakMap<object, { key: readonly unknown[]; pieces: readonly Piece[] }>();

  get(message: object, key: readonly unknown[], make: () => readonly Piece[]): readonly Piece[] {
    const cached = this.#entries.get(message);
    if (cached !== undefined && sameKey(cached.key, key)) return cached.pieces;
    const pieces = make();
    this.#entries.set(message, { key, pieces });
    return pieces;
  }
}
