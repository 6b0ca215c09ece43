/**
 * A local HTTP fake of the Anthropic Messages API (`POST /v1/messages`) for an agent's
 * conversation, on loopback, so the real SDK can be pointed at it (`baseURL`). Every
 * request goes through the thinking checks of {@link AnthropicThinkingBinder}: a refused
 * request gets the API's 400 (`invalid_request_error`); an accepted one gets the answer the
 * test scripts, its thinking blocks signed against that request, with
 * `input_transformations` when the request sent the block-binding beta header.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import {
  type AnthropicBlock,
  type AnthropicRequest,
  AnthropicThinkingBinder,
  BLOCK_BINDING_BETA,
} from "./anthropic-thinking";

/** The content of the answer to a request (thinking blocks are signed by the fake). */
export type ScriptedAnswer = (request: AnthropicRequest) => AnthropicBlock[];

export interface MessagesFake {
  baseURL: string;
  binder: AnthropicThinkingBinder;
  /** Every request body received, in order. */
  requests: AnthropicRequest[];
  close(): Promise<void>;
}

function betasOf(request: IncomingMessage): string[] {
  const header = request.headers["anthropic-beta"];
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values.flatMap((value) => value.split(",")).map((value) => value.trim());
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { "content-type": "application/json", "request-id": `req_fake_${Date.now()}` });
  response.end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

/** Starts the fake on 127.0.0.1 and an ephemeral port. */
export async function startMessagesFake(
  answer: ScriptedAnswer,
  binder = new AnthropicThinkingBinder(),
): Promise<MessagesFake> {
  const requests: AnthropicRequest[] = [];
  let counter = 0;
  const server = createServer((request, response) => {
    void (async () => {
      if (request.method !== "POST" || !request.url?.startsWith("/v1/messages")) {
        send(response, 404, { type: "error", error: { type: "not_found_error", message: "Not found" } });
        return;
      }
      const body = (await readJson(request)) as AnthropicRequest & { model?: string };
      requests.push(body);
      const betas = betasOf(request);
      const checked = binder.check(body, betas);
      if (!checked.ok) {
        send(response, checked.status, {
          type: "error",
          error: { type: checked.type, message: checked.message },
        });
        return;
      }
      const content = binder.sign(body, answer(body));
      counter++;
      send(response, 200, {
        id: `msg_fake_${counter}`,
        type: "message",
        role: "assistant",
        model: body.model ?? "claude-fable-5-2",
        content,
        stop_reason: content.some((block) => block.type === "tool_use") ? "tool_use" : "end_turn",
        stop_sequence: null,
        usage: { input_tokens: Math.ceil(JSON.stringify(body.messages).length / 4), output_tokens: 16 },
        ...(betas.includes(BLOCK_BINDING_BETA)
          ? { input_transformations: checked.inputTransformations }
          : {}),
      });
    })().catch((error: unknown) => {
      send(response, 500, { type: "error", error: { type: "api_error", message: String(error) } });
    });
  });
  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    binder,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
