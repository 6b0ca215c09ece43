/**
 * A document-reading provider for the AI SDK integration tests: a mock language model
 * that reads memo_9 page by page then answers, a real read_document tool, and earlier
 * turns of a thread in the caller's ModelMessage form with the digest rows for them.
 */
import { type ModelMessage, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { z } from "zod";
import { contentSha256 } from "../hash";
import { fixtureDigest, pageText } from "../provider-thread.fixture";
import type { DigestEntry } from "../types";

export const PAGE_CHARS = 8_000;
export const page = (fileId: string, index: number): string =>
  pageText(fileId, index * PAGE_CHARS, PAGE_CHARS);

/** One earlier turn in the caller's messages: a read request, one read per page, an answer. */
export function earlierTurn(fileId: string, pages: number): ModelMessage[] {
  return [
    { role: "user", content: `Read ${fileId} pages ${pages}` },
    ...Array.from({ length: pages }, (_, index): ModelMessage[] => [
      {
        role: "assistant",
        content: [
          {
            type: "tool-call",
            toolCallId: `${fileId}_p${index}`,
            toolName: "read_document",
            input: { file_id: fileId, offset: index * PAGE_CHARS },
          },
        ],
      },
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: `${fileId}_p${index}`,
            toolName: "read_document",
            output: { type: "text", value: page(fileId, index) },
          },
        ],
      },
    ]).flat(),
    { role: "assistant", content: "Done reading." },
  ];
}

/** A provider that reads the requested document page by page, then answers. */
export function readerModel(): MockLanguageModelV4 {
  return new MockLanguageModelV4({
    doGenerate: async ({ prompt }) => {
      const lastUser = prompt.findLastIndex((message) => message.role === "user");
      const read = prompt
        .slice(lastUser + 1)
        .flatMap((message): { type: string }[] => (Array.isArray(message.content) ? message.content : []))
        .filter((part) => part.type === "tool-result").length;
      const usage = {
        inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 1, text: 1, reasoning: 0 },
      };
      if (read >= 2) {
        return {
          content: [{ type: "text", text: "Done." }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        };
      }
      return {
        content: [
          {
            type: "tool-call",
            toolCallId: `memo_9_p${read}`,
            toolName: "read_document",
            input: JSON.stringify({ file_id: "memo_9", offset: read * PAGE_CHARS }),
          },
        ],
        finishReason: { unified: "tool-calls", raw: "tool_use" },
        usage,
        warnings: [],
      };
    },
  });
}

export const readDocument = tool({
  description: "Reads one page of a document from a character offset.",
  inputSchema: z.object({ file_id: z.string(), offset: z.number() }),
  execute: async ({ file_id, offset }) => pageText(file_id, offset, PAGE_CHARS),
});

/** Digest rows for the first `pages` pages of an earlier turn's document. */
export function pageDigests(fileId: string, pages: number): Map<string, DigestEntry> {
  return new Map(
    Array.from({ length: pages }, (_, index): [string, DigestEntry] => {
      const id = `${fileId}_p${index}`;
      const digest = fixtureDigest(id);
      return [id, { digest, contentSha256: contentSha256(page(fileId, index)), digestChars: digest.length }];
    }),
  );
}
