import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { type ContractRefusal, contractRefusal } from "./anthropic-model-contracts";
import { answerPages, type FakePage } from "./digest-answers";

export type { FakePage } from "./digest-answers";

/**
 * A local HTTP fake of the Anthropic Messages API (`POST /v1/messages`), for testing the
 * real SDK through an injected `baseURL`. It records every request, refuses what the real
 * API refuses for the requested model (HTTP 400 `invalid_request_error` with the API's
 * message, see anthropic-model-contracts.ts), checks the digester's shape (forced tool
 * choice, tool schema, the document delimited as data) and answers in the mode set by the
 * test.
 */

/** How the fake answers the next requests. */
export type FakeMode =
  | "ok"
  | "rate-limited"
  | "server-error"
  | "slow"
  | "malformed-json"
  | "malformed-shape"
  | "bad-tool-input"
  | "refusal"
  | "invented-figure"
  | "invented-only"
  /** A bullet pairing a rate with an amount no one sentence or row of the page pairs. */
  | "mispaired"
  /** Only such bullets. */
  | "mispaired-only"
  /** A valid answer that opens with a thinking block, as thinking models answer. */
  | "thinking-first";

/** One recorded request. */
export interface RecordedRequest {
  path: string;
  headers: IncomingMessage["headers"];
  body: Record<string, unknown>;
  pages: FakePage[];
  /** Shape problems found; an answer to a request with problems is a 400. */
  problems: string[];
  /** The API's refusal of this request for its model, if any (answered as is). */
  refusal?: ContractRefusal;
}

/** A running fake. */
export interface FakeMessagesApi {
  baseURL: string;
  requests: RecordedRequest[];
  mode: FakeMode;
  /** How long the `slow` mode waits before answering. @default 2000 */
  slowMs: number;
  close(): Promise<void>;
}

/** The API key a request carried: `x-api-key`, or `Authorization: Bearer` (SDK 1.x sends the latter). */
export function credentialOf(headers: IncomingMessage["headers"]): string | undefined {
  const apiKey = headers["x-api-key"];
  if (typeof apiKey === "string" && apiKey !== "") return apiKey;
  const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? "");
  return bearer?.[1];
}

const PAGE = /<page tool_call_id="([^"]*)"[^>]*>\n([\s\S]*?)\n<\/page>/g;

function checkShape(body: Record<string, unknown>): { problems: string[]; pages: FakePage[] } {
  const problems: string[] = [];
  if (typeof body.model !== "string" || !body.model.startsWith("claude-")) problems.push("model");
  if (typeof body.max_tokens !== "number") problems.push("max_tokens");
  const choice = body.tool_choice as { type?: string; name?: string } | undefined;
  const tools = body.tools as
    | { name?: string; input_schema?: { type?: string; properties?: object } }[]
    | undefined;
  const forced = Array.isArray(tools) ? tools.find((tool) => tool.name === choice?.name) : undefined;
  if (choice?.type !== "tool" || !forced) problems.push("tool_choice must force one of the tools");
  if (forced && (forced.input_schema?.type !== "object" || !forced.input_schema.properties)) {
    problems.push("tools[].input_schema");
  }
  const messages = body.messages as
    | { role?: string; content?: { type?: string; text?: string }[] }[]
    | undefined;
  const text = messages?.[0]?.content?.[0]?.text ?? "";
  const documents = text.match(/<document [^>]*>/g) ?? [];
  if (messages?.length !== 1 || documents.length !== 1 || text.split("</document>").length !== 2) {
    problems.push("one user turn with exactly one delimited <document>");
  }
  const pages = [...text.matchAll(PAGE)].map((match) => ({
    toolCallId: match[1] ?? "",
    text: match[2] ?? "",
  }));
  if (pages.length === 0) problems.push("no delimited <page>");
  if (typeof body.system !== "string" || !/DATA/.test(body.system))
    problems.push("system prompt must say pages are data");
  return { problems, pages };
}

function toolInput(pages: FakePage[], mode: FakeMode): unknown {
  const answerMode =
    mode === "invented-figure" ||
    mode === "invented-only" ||
    mode === "mispaired" ||
    mode === "mispaired-only"
      ? mode
      : "ok";
  return { pages: answerPages(pages, answerMode) };
}

function messageBody(model: string, content: unknown[], stopReason: string): string {
  return JSON.stringify({
    id: "msg_fake",
    type: "message",
    role: "assistant",
    model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: {
      input_tokens: 12_000,
      output_tokens: 800,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 0,
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

function errorBody(type: string, message: string): string {
  return JSON.stringify({ type: "error", error: { type, message } });
}

function replyTo(mode: FakeMode, record: RecordedRequest): Reply {
  const model = String(record.body.model);
  const toolName = (record.body.tool_choice as { name?: string } | undefined)?.name ?? "";
  if (record.refusal) {
    return { status: record.refusal.status, body: errorBody(record.refusal.type, record.refusal.message) };
  }
  if (record.problems.length > 0) {
    return { status: 400, body: errorBody("invalid_request_error", record.problems.join("; ")) };
  }
  const retryFast = { "retry-after-ms": "5" };
  switch (mode) {
    case "rate-limited":
      return { status: 429, body: errorBody("rate_limit_error", "slow down"), headers: retryFast };
    case "server-error":
      return { status: 500, body: errorBody("api_error", "boom"), headers: retryFast };
    case "malformed-json":
      return { status: 200, body: '{"id": "msg_fake", "content": [' };
    case "malformed-shape":
      return { status: 200, body: JSON.stringify({ hello: "world" }) };
    case "refusal":
      return { status: 200, body: messageBody(model, [], "refusal") };
    case "bad-tool-input": {
      const block = { type: "tool_use", id: "toolu_1", name: toolName, input: { pages: "nope" } };
      return { status: 200, body: messageBody(model, [block], "tool_use") };
    }
    default: {
      const block = { type: "tool_use", id: "toolu_1", name: toolName, input: toolInput(record.pages, mode) };
      const thinking = { type: "thinking", thinking: "", signature: "sig_fake" };
      const content = mode === "thinking-first" ? [thinking, block] : [block];
      return { status: 200, body: messageBody(model, content, "tool_use") };
    }
  }
}

/**
 * Starts the fake on 127.0.0.1, port 0 (a free port).
 *
 * @example
 * const fake = await startFakeMessagesApi();
 * const client = new Anthropic({ apiKey: "test", baseURL: fake.baseURL });
 */
export async function startFakeMessagesApi(mode: FakeMode = "ok"): Promise<FakeMessagesApi> {
  const sockets = new Set<Socket>();
  const timers = new Set<NodeJS.Timeout>();
  const fake: FakeMessagesApi = { baseURL: "", requests: [], mode, slowMs: 2_000, close: async () => {} };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      let body: Record<string, unknown> = {};
      const problems: string[] = [];
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
      } catch {
        problems.push("body is not JSON");
      }
      if (request.method !== "POST" || request.url?.split("?")[0] !== "/v1/messages")
        problems.push("endpoint");
      if (!credentialOf(request.headers)) problems.push("x-api-key or authorization header");
      if (!request.headers["anthropic-version"]) problems.push("anthropic-version header");
      const shape = checkShape(body);
      const refusal = problems.length === 0 ? contractRefusal(body) : undefined;
      const record: RecordedRequest = {
        path: request.url ?? "",
        headers: request.headers,
        body,
        pages: shape.pages,
        problems: [...problems, ...shape.problems],
        ...(refusal ? { refusal } : {}),
      };
      fake.requests.push(record);
      if (fake.mode === "slow") {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!response.destroyed) send(response, replyTo("ok", record));
        }, fake.slowMs);
        timers.add(timer);
        return;
      }
      send(response, replyTo(fake.mode, record));
    });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  fake.baseURL = `http://127.0.0.1:${port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
  return fake;
}
