import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

/** How the fake answers GetSecretValue for one secret id. */
export type FakeSecret =
  | { kind: "string"; value: string }
  | { kind: "binary" }
  | { kind: "error"; status: number; type: string };

/** A running fake; point a SecretsManagerClient's `endpoint` at `url`. */
export interface FakeSecretsManager {
  url: string;
  /** The secret ids asked for, in order. */
  requests: string[];
  secrets: Map<string, FakeSecret>;
  close(): Promise<void>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * A local HTTP fake of AWS Secrets Manager's `GetSecretValue`, speaking the service's
 * JSON 1.1 protocol (`POST /`, `X-Amz-Target: secretsmanager.GetSecretValue`), so the real
 * SDK client runs against it. Other operations answer 400.
 */
export async function startFakeSecretsManager(): Promise<FakeSecretsManager> {
  const requests: string[] = [];
  const secrets = new Map<string, FakeSecret>();
  const server = createServer(async (request, response) => {
    const body = await readBody(request);
    const reply = (status: number, payload: unknown, errorType?: string) => {
      response.writeHead(status, {
        "content-type": "application/x-amz-json-1.1",
        ...(errorType ? { "x-amzn-errortype": errorType } : {}),
      });
      response.end(JSON.stringify(payload));
    };
    if (request.method !== "POST" || request.headers["x-amz-target"] !== "secretsmanager.GetSecretValue") {
      reply(
        400,
        { __type: "UnknownOperationException", message: "only GetSecretValue" },
        "UnknownOperationException",
      );
      return;
    }
    const secretId = String((JSON.parse(body) as { SecretId?: unknown }).SecretId);
    requests.push(secretId);
    const secret = secrets.get(secretId) ?? { kind: "error", status: 400, type: "ResourceNotFoundException" };
    if (secret.kind === "error") {
      reply(secret.status, { __type: secret.type, message: `fake ${secret.type}` }, secret.type);
      return;
    }
    const common = {
      ARN: secretId,
      Name: secretId.split(":").at(-1),
      VersionId: "v1",
      CreatedDate: 1_772_366_400,
    };
    reply(
      200,
      secret.kind === "string"
        ? { ...common, SecretString: secret.value }
        : { ...common, SecretBinary: Buffer.from("binary").toString("base64") },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    secrets,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
