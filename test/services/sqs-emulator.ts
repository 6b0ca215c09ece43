/**
 * The SQS emulator the services tier runs against: fauxqs, in-process, listening on
 * loopback only (127.0.0.1, never every interface), with queue URLs that name the address
 * it listens on (`http://127.0.0.1:<port>/000000000000/<name>`).
 *
 * fauxqs's own `startFauxqs()` listens on `0.0.0.0`, and its queue URLs name
 * `sqs.<region>.localhost`, which does not resolve on every machine. The AWS SDK sends each
 * queue call to its queue URL's host unless the client sets an explicit `endpoint`
 * (`AWS_ENDPOINT_URL_SQS` does not count), so a plain `new SQSClient({})`, as the deployed
 * functions build it, fails on those URLs (`getaddrinfo ENOTFOUND`). With the URLs naming
 * 127.0.0.1 any client reaches the emulator, with or without an endpoint.
 *
 * Run it on its own for local development (see docs/local-services.md):
 * `node --import tsx test/services/sqs-emulator.ts --port 4566 --queue digest.fifo`.
 */
import { pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import {
  CreateQueueCommand,
  GetQueueAttributesCommand,
  SQSClient,
  type SQSClientConfig,
} from "@aws-sdk/client-sqs";
import { type BuildAppOptions, buildApp } from "fauxqs";

/** The only interface the emulator listens on. */
export const SQS_EMULATOR_HOST = "127.0.0.1";

export interface SqsEmulatorQueue {
  queueUrl: string;
  queueArn: string;
}

export interface SqsEmulator {
  /** `http://127.0.0.1:<port>` */
  readonly endpoint: string;
  readonly port: number;
  /**
   * Creates a queue through the SQS API (as `CreateQueue` would on AWS: a name ending in
   * `.fifo` makes a FIFO queue) and returns its URL and ARN.
   */
  createQueue(name: string, attributes?: Record<string, string>): Promise<SqsEmulatorQueue>;
  /** An SQS client with test credentials; `endpoint` is the emulator unless overridden. */
  client(config?: SQSClientConfig): SQSClient;
  stop(): Promise<void>;
}

export interface SqsEmulatorOptions {
  /** @default 0 (any free port) */
  port?: number;
  /** @default "us-east-1" */
  region?: string;
}

type FauxqsStores = NonNullable<BuildAppOptions["stores"]>;

/**
 * The three in-memory stores `buildApp` takes, with the SQS store's URL host cleared: fauxqs
 * then builds each queue URL from the request's own `Host` (`127.0.0.1:<port>`) instead of
 * `sqs.<region>.localhost`. `buildApp({ host })` cannot clear it (an empty host is ignored)
 * and the package exports only its app, so the store classes load from its build.
 */
async function loopbackStores(): Promise<FauxqsStores> {
  const dist = new URL(".", import.meta.resolve("fauxqs"));
  const [{ SqsStore }, { SnsStore }, { S3Store }] = await Promise.all([
    import(new URL("sqs/sqsStore.js", dist).href),
    import(new URL("sns/snsStore.js", dist).href),
    import(new URL("s3/s3Store.js", dist).href),
  ]);
  const stores: FauxqsStores = { sqsStore: new SqsStore(), snsStore: new SnsStore(), s3Store: new S3Store() };
  stores.sqsStore.host = "";
  return stores;
}

/** Starts fauxqs on 127.0.0.1 (any free port unless `port` is given). */
export async function startSqsEmulator(options: SqsEmulatorOptions = {}): Promise<SqsEmulator> {
  const region = options.region ?? "us-east-1";
  const app = buildApp({ logger: false, defaultRegion: region, stores: await loopbackStores() });
  await app.listen({ host: SQS_EMULATOR_HOST, port: options.port ?? 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") {
    await app.close();
    throw new Error("fauxqs did not report a TCP address");
  }
  const endpoint = `http://${SQS_EMULATOR_HOST}:${address.port}`;
  const client = (config: SQSClientConfig = {}): SQSClient =>
    new SQSClient({
      endpoint,
      region,
      credentials: { accessKeyId: "test", secretAccessKey: "test" },
      maxAttempts: 1,
      ...config,
    });
  const admin = client();
  return {
    endpoint,
    port: address.port,
    client,
    async createQueue(name, attributes = {}) {
      const { QueueUrl } = await admin.send(
        new CreateQueueCommand({ QueueName: name, Attributes: attributes }),
      );
      if (QueueUrl === undefined) throw new Error(`fauxqs returned no URL for queue ${name}`);
      const { Attributes } = await admin.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ["QueueArn"] }),
      );
      const queueArn = Attributes?.QueueArn;
      if (queueArn === undefined) throw new Error(`fauxqs returned no ARN for queue ${name}`);
      return { queueUrl: QueueUrl, queueArn };
    },
    async stop() {
      admin.destroy();
      await app.close();
    },
  };
}

/** `node --import tsx test/services/sqs-emulator.ts [--port 4566] [--region r] [--queue name]…` */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      port: { type: "string", default: "4566" },
      region: { type: "string", default: "us-east-1" },
      queue: { type: "string", multiple: true, default: [] },
    },
  });
  const emulator = await startSqsEmulator({ port: Number(values.port), region: values.region });
  console.log(`fauxqs listening on ${emulator.endpoint} (region ${values.region})`);
  for (const name of values.queue) {
    const { queueUrl } = await emulator.createQueue(name);
    console.log(`queue ${name}: ${queueUrl}`);
  }
  const stop = (): void => {
    emulator.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await main();
}
