import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type AnswerMode, type AnswerPage, answerPages, type FakePage } from "./digest-answers";
import { type ApiRefusal, apiRefusal } from "./openai-structured-outputs";

/**
 * A local HTTP fake of the Chat Completions API (`POST /v1/chat/completions`), for testing
 * the real `openai` SDK through an injected `baseURL`. It records every request, refuses
 * what the real API refuses (a response-format schema outside the strict structured-outputs
 * subset, an unknown model, `max_tokens` to a reasoning model: HTTP 400 or 404 with the
 * API's error body, see openai-structured-outputs.ts), checks the digester's shape (a strict
 * `json_schema` response format, the document delimited as data) and answers in the mode
 * set by the test: a strict-schema answer, a refusal, a cut-off answer, rate limits with
 * `retry-after`, server errors.
 */

/** How the fake answers the next requests. */
export type FakeChatMode =
  | AnswerMode
  | "rate-limited"
  | "server-error"
  | "unavailable"
  | "slow"
  | "malformed-json"
  | "malformed-shape"
  | "not-json-content"
  | "bad-answer"
  | "refusal"
  | "content-filter"
  | "truncated"
  /** Rate limited once, then answers. */
  | "rate-limited-once";

/** One recorded request. */
export interface RecordedChatRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
  pages: FakePage[];
  /** When it arrived (ms since the epoch). */
  at: number;
  /** Shape problems found; an answer to a request with problems is a 400. */
  problems: string[];
  /** The API's refusal of this request, if any (answered as is). */
  refusal?: ApiRefusal;
}

/** A running fake. */
export interface FakeChatCompletionsApi {
  /** The API root to give the SDK (ends in `/v1`). */
  baseURL: string;
  requests: RecordedChatRequest[];
  mode: FakeChatMode;
  /** How long the `slow` mode waits before answering. @default 2000 */
  slowMs: number;
  /** The `retry-after` header (seconds) of a 429. @default "0.01" */
  retryAfterSeconds: string;
  close(): Promise<void>;
}

const PAGE = /<page tool_call_id="([^"]*)"[^>]*>\n([\s\S]*?)\n<\/page>/g;

function checkShape(body: Record<string, unknown>): { problems: string[]; pages: FakePage[] } {
  const problems: string[] = [];
  const format = body.response_format as
    | { type?: string; json_schema?: { strict?: unknown; schema?: unknown } }
    | undefined;
  if (format?.type !== "json_schema" || format.json_schema?.strict !== true) {
    problems.push("response_format must be a strict json_schema");
  }
  const limit = body.max_tokens ?? body.max_completion_tokens;
  if (typeof limit !== "number" || limit < 1) problems.push("max_tokens or max_completion_tokens");
  const messages = body.messages as { role?: string; content?: unknown }[] | undefined;
  const system = messages?.[0];
  if (system?.role !== "system" || typeof system.content !== "string" || !/DATA/.test(system.content)) {
    problems.push("a system message saying pages are data");
  }
  const user = messages?.[1];
  const text = user?.role === "user" && typeof user.content === "string" ? user.content : "";
  const documents = text.match(/<document [^>]*>/g) ?? [];
  if (messages?.length !== 2 || documents.length !== 1 || text.split("</document>").length !== 2) {
    problems.push("one user message with exactly one delimited <document>");
  }
  const pages = [...text.matchAll(PAGE)].map((match) => ({
    toolCallId: match[1] ?? "",
    text: match[2] ?? "",
  }));
  if (pages.length === 0) problems.push("no delimited <page>");
  return { problems, pages };
}

/** An answer page as strict structured output gives it: every field present. */
function strictPage(page: AnswerPage): Required<AnswerPage> {
  return {
    tool_call_id: page.tool_call_id,
    title: page.title ?? null,
    points: page.points ?? [],
    parties: page.parties ?? [],
    dates: page.dates ?? [],
    amounts: page.amounts ?? [],
    obligations: page.obligations ?? [],
    defined_terms: page.defined_terms ?? [],
    cross_references: page.cross_references ?? [],
  };
}

function completionBody(
  model: string,
  message: { content: string | null; refusal: string | null },
  finishReason: string,
): string {
  return JSON.stringify({
    id: "chatcmpl-fake",
    object: "chat.completion",
    created: 1_764_600_000,
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", ...message, annotations: [] },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage: {
      prompt_tokens: 12_000,
      completion_tokens: 800,
      total_tokens: 12_800,
      prompt_tokens_details: { cached_tokens: 2_000, audio_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0 },
    },
  });
}

interface Reply {
  status: number;
  body: string;
  headers?: Record<string, string>;
}

function send(response: ServerResponse, reply: Reply): void {
  response.writeHead(reply.status, { "content-type": "application/json", ...reply.headers });
  response.end(reply.body);
}

function errorBody(
  message: string,
  type: string,
  code: string | null = null,
  param: string | null = null,
): string {
  return JSON.stringify({ error: { message, type, param, code } });
}

const ANSWER_MODES: readonly FakeChatMode[] = [
  "ok",
  "invented-figure",
  "invented-only",
  "mispaired",
  "mispaired-only",
];

function replyTo(mode: FakeChatMode, record: RecordedChatRequest, retryAfter: string): Reply {
  const model = String(record.body.model);
  if (record.refusal)
    return { status: record.refusal.status, body: JSON.stringify({ error: record.refusal.error }) };
  if (record.problems.length > 0) {
    return { status: 400, body: errorBody(record.problems.join("; "), "invalid_request_error") };
  }
  const answer = (answerMode: AnswerMode) =>
    JSON.stringify({ pages: answerPages(record.pages, answerMode).map(strictPage) });
  switch (mode) {
    case "rate-limited":
    case "rate-limited-once":
      return {
        status: 429,
        body: errorBody(
          `Rate limit reached for ${model} on tokens per min (TPM): Limit 200000, Used 199000, Requested 12800.`,
          "tokens",
          "rate_limit_exceeded",
        ),
        headers: { "retry-after": retryAfter },
      };
    case "server-error":
      return {
        status: 500,
        body: errorBody(
          "The server had an error while processing your request. Sorry about that!",
          "server_error",
        ),
      };
    case "unavailable":
      return {
        status: 503,
        body: errorBody("The engine is currently overloaded, please try again later.", "server_error"),
      };
    case "malformed-json":
      return { status: 200, body: '{"id": "chatcmpl-fake", "choices": [' };
    case "malformed-shape":
      return { status: 200, body: JSON.stringify({ hello: "world" }) };
    case "not-json-content":
      return {
        status: 200,
        body: completionBody(model, { content: "Sure! Here is the digest:", refusal: null }, "stop"),
      };
    case "bad-answer":
      return {
        status: 200,
        body: completionBody(model, { content: '{"pages":"nope"}', refusal: null }, "stop"),
      };
    case "refusal":
      return {
        status: 200,
        body: completionBody(model, { content: null, refusal: "I'm sorry, I can't help with that." }, "stop"),
      };
    case "content-filter":
      return { status: 200, body: completionBody(model, { content: null, refusal: null }, "content_filter") };
    case "truncated": {
      const full = answer("ok");
      return {
        status: 200,
        body: completionBody(
          model,
          { content: full.slice(0, Math.floor(full.length / 2)), refusal: null },
          "length",
        ),
      };
    }
    default: {
      const answerMode = ANSWER_MODES.includes(mode) ? (mode as AnswerMode) : "ok";
      return {
        status: 200,
        body: completionBody(model, { content: answer(answerMode), refusal: null }, "stop"),
      };
    }
  }
}

/** The bearer token a request carried. */
export function bearerOf(headers: IncomingMessage["headers"]): string | undefined {
  return /^Bearer (.+)$/.exec(headers.authorization ?? "")?.[1];
}

/**
 * Starts the fake on 127.0.0.1, port 0 (a free port).
 *
 * @example
 * const fake = await startFakeChatCompletionsApi();
 * const client = new OpenAI({ apiKey: "test", baseURL: fake.baseURL });
 */
export async function startFakeChatCompletionsApi(
  mode: FakeChatMode = "ok",
): Promise<FakeChatCompletionsApi> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const fake: FakeChatCompletionsApi = {
    baseURL: "",
    requests: [],
    mode,
    slowMs: 2_000,
    retryAfterSeconds: "0.01",
    close: async () => {},
  };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const at = Date.now();
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      } catch {
        send(response, {
          status: 400,
          body: errorBody("We could not parse the JSON body of your request.", "invalid_request_error"),
        });
        return;
      }
      if (request.method !== "POST" || request.url?.split("?")[0] !== "/v1/chat/completions") {
        send(response, {
          status: 404,
          body: errorBody(`Invalid URL (${request.method} ${request.url})`, "invalid_request_error"),
        });
        return;
      }
      if (!bearerOf(request.headers)) {
        send(response, {
          status: 401,
          body: errorBody("You didn't provide an API key.", "invalid_request_error", "missing_api_key"),
        });
        return;
      }
      const refusal = apiRefusal(body);
      const shape = checkShape(body);
      const record: RecordedChatRequest = {
        path: request.url ?? "",
        headers: request.headers,
        body,
        pages: shape.pages,
        at,
        problems: shape.problems,
        ...(refusal ? { refusal } : {}),
      };
      fake.requests.push(record);
      const current = fake.mode;
      if (current === "rate-limited-once") fake.mode = "ok";
      if (current === "slow") {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!response.destroyed) send(response, replyTo("ok", record, fake.retryAfterSeconds));
        }, fake.slowMs);
        timers.add(timer);
        return;
      }
      send(response, replyTo(current, record, fake.retryAfterSeconds));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  fake.baseURL = `http://127.0.0.1:${port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return fake;
}
