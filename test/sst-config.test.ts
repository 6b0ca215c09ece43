import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FUNCTION_BUNDLES } from "./bench/function-bundles";

/**
 * Evaluates sst.config.ts with recording stand-ins for SST's globals (`$config`, `sst`,
 * `aws`): every component constructed is recorded with its arguments, so the test checks
 * the infrastructure as declared, offline. (`npm run typecheck:sst` checks the same file
 * against SST's real types.)
 */

interface Recorded {
  kind: string;
  name: string;
  args: Record<string, unknown>;
}

type Config = {
  app(input: { stage: string }): Record<string, unknown>;
  run(): Promise<unknown>;
};

const created: Recorded[] = [];

class FakeComponent {
  readonly arn: string;
  readonly url: string;
  readonly nodes: { queue: { name: string } };

  constructor(
    readonly kind: string,
    readonly name: string,
    args: Record<string, unknown> = {},
  ) {
    this.arn = `arn:aws:sqs:eu-west-1:123456789012:${name}`;
    this.url = `https://sqs.eu-west-1.amazonaws.com/123456789012/${name}`;
    this.nodes = { queue: { name: `${name}-physical` } };
    created.push({ kind, name, args });
  }
}

class FakeQueue extends FakeComponent {
  constructor(name: string, args?: Record<string, unknown>) {
    super("Queue", name, args);
  }

  subscribe(subscriber: Record<string, unknown>, args: Record<string, unknown>) {
    created.push({ kind: "QueueSubscriber", name: this.name, args: { subscriber, ...args } });
  }
}

const GLOBALS = {
  $config: (config: Config) => config,
  sst: {
    Secret: class extends FakeComponent {
      /** Stands for the secret's value output: the secret it comes from. */
      readonly value: string;

      constructor(name: string, placeholder?: string) {
        super("Secret", name, placeholder === undefined ? {} : { placeholder });
        this.value = `<secret ${name}>`;
      }
    },
    aws: {
      Queue: FakeQueue,
      Cron: class extends FakeComponent {
        constructor(name: string, args: Record<string, unknown>) {
          super("Cron", name, args);
        }
      },
    },
  },
  aws: {
    cloudwatch: {
      MetricAlarm: class extends FakeComponent {
        constructor(name: string, args: Record<string, unknown>) {
          super("MetricAlarm", name, args);
        }
      },
    },
  },
};

let config: Config;

function one(kind: string, name?: string): Recorded {
  const matches = created.filter(
    (entry) => entry.kind === kind && (name === undefined || entry.name === name),
  );
  expect(matches, `${kind} ${name ?? ""}`).toHaveLength(1);
  return matches[0] as Recorded;
}

/** Seconds of an SST duration such as "1800 seconds" or "5 minutes". */
function seconds(duration: unknown): number {
  const match = /^(\d+) (second|minute|hour)s?$/.exec(String(duration));
  if (match === null) throw new Error(`not a duration: ${String(duration)}`);
  return Number(match[1]) * { second: 1, minute: 60, hour: 3600 }[match[2] as "second" | "minute" | "hour"];
}

function linkedNames(args: Record<string, unknown>): string[] {
  return (args.link as FakeComponent[]).map((component) => component.name).sort();
}

// A deployment that reads the app's own message table, set in the deploying shell.
const DEPLOY_ENVIRONMENT = {
  CHECKPOINT_MESSAGE_TABLE: "app.thread_messages",
  CHECKPOINT_ORG_ID_COLUMN: "org_id",
  CHECKPOINT_UPDATED_AT_COLUMN: "updated_at",
};
const savedEnvironment = Object.keys(DEPLOY_ENVIRONMENT).map((name) => [name, process.env[name]] as const);

beforeAll(async () => {
  Object.assign(process.env, DEPLOY_ENVIRONMENT);
  Object.assign(globalThis, GLOBALS);
  // A computed specifier: the root type-check must not follow it into SST's platform types.
  const path = new URL("../sst.config.ts", import.meta.url).href;
  config = (await import(/* @vite-ignore */ path)).default as Config;
  await config.run();
});

afterAll(() => {
  for (const name of Object.keys(GLOBALS)) Reflect.deleteProperty(globalThis, name);
  for (const [name, value] of savedEnvironment) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

describe("sst.config.ts", () => {
  it("declares a FIFO digest queue without content-based deduplication, with a FIFO dead-letter queue after 5 receives", () => {
    const queue = one("Queue", "DigestQueue").args;
    const deadLetters = one("Queue", "DigestDeadLetterQueue");
    expect(queue.fifo).toEqual({ contentBasedDeduplication: false });
    expect(deadLetters.args.fifo).toBe(true);
    expect(queue.dlq).toEqual({ queue: `arn:aws:sqs:eu-west-1:123456789012:${deadLetters.name}`, retry: 5 });
  });

  it("runs the digest queue in FIFO high-throughput mode: deduplication and the throughput limit per message group", () => {
    const queue = one("Queue", "DigestQueue").args as { transform?: { queue?: Record<string, unknown> } };
    expect(queue.transform?.queue).toMatchObject({
      deduplicationScope: "messageGroup",
      fifoThroughputLimit: "perMessageGroupId",
    });
  });

  it("caps the digest function's concurrency on the event source below what the database accepts", () => {
    const args = one("QueueSubscriber", "DigestQueue").args as {
      transform?: { eventSourceMapping?: { scalingConfig?: { maximumConcurrency?: number } } };
    };
    const maximum = args.transform?.eventSourceMapping?.scalingConfig?.maximumConcurrency;
    // SQS event sources accept 2–1000; docs/scale.md sizes the cap against the database's connections.
    expect(maximum).toBeGreaterThanOrEqual(2);
    expect(maximum).toBeLessThanOrEqual(50);
  });

  it("subscribes the digest function in batches of 10 with partial batch responses", () => {
    const { subscriber, batch } = one("QueueSubscriber", "DigestQueue").args as {
      subscriber: Record<string, unknown>;
      batch: Record<string, unknown>;
    };
    expect(subscriber.handler).toBe("functions/digest.handler");
    expect(subscriber.runtime).toBe("nodejs22.x");
    expect(batch).toEqual({ size: 10, partialResponses: true });
    expect(linkedNames(subscriber)).toEqual([
      "AnthropicApiKey",
      "CheckpointDatabaseUrl",
      "DatabaseUrl",
      "DigestDeadLetterQueue",
      "DigestQueue",
      "OpenAiCompatibleKey",
      "RedisUrl",
      "UpstashRedisToken",
      "UpstashRedisUrl",
    ]);
  });

  it("leaves the turn-lock peek's Redis to the stage: REDIS_URL or Upstash's URL and token, each empty (off) until set", () => {
    for (const name of ["RedisUrl", "UpstashRedisUrl", "UpstashRedisToken"]) {
      expect(one("Secret", name).args).toEqual({ placeholder: "" });
    }
  });

  it("passes the digest model settings to the digest function's environment from their secrets, the key linked only", () => {
    const { subscriber } = one("QueueSubscriber", "DigestQueue").args as {
      subscriber: { environment?: Record<string, string> };
    };
    expect(subscriber.environment).toEqual({
      ...DEPLOY_ENVIRONMENT,
      DIGEST_MODEL: "<secret DigestModel>",
      OPENAI_COMPATIBLE_BASE_URL: "<secret OpenAiCompatibleBaseUrl>",
      OPENAI_COMPATIBLE_MODEL: "<secret OpenAiCompatibleModel>",
      OPENAI_COMPATIBLE_OUTPUT_LIMIT_FIELD: "<secret OpenAiCompatibleOutputLimitField>",
      OPENAI_COMPATIBLE_PRICES: "<secret OpenAiCompatiblePrices>",
    });
    expect(Object.values(subscriber.environment ?? {})).not.toContain("<secret OpenAiCompatibleKey>");
    // Placeholders: a stage that sets none of them runs the Anthropic digester as before.
    expect(one("Secret", "DigestModel").args).toEqual({ placeholder: "anthropic" });
    for (const name of [
      "OpenAiCompatibleKey",
      "OpenAiCompatibleBaseUrl",
      "OpenAiCompatibleModel",
      "OpenAiCompatibleOutputLimitField",
      "OpenAiCompatiblePrices",
    ]) {
      expect(one("Secret", name).args).toEqual({ placeholder: "" });
    }
    expect(one("Secret", "AnthropicApiKey").args).toEqual({});
  });

  it("bundles each function as npm run bench:bundle measures it (installed packages, code splitting)", () => {
    const { subscriber } = one("QueueSubscriber", "DigestQueue").args as {
      subscriber: Record<string, unknown>;
    };
    const sweep = one("Cron", "NightlySweep").args.function as Record<string, unknown>;
    const bundles = Object.fromEntries(FUNCTION_BUNDLES.map((bundle) => [bundle.name, bundle]));
    expect(subscriber.nodejs).toEqual({
      install: bundles.digest?.install,
      splitting: bundles.digest?.splitting,
    });
    expect(sweep.nodejs).toEqual({ splitting: bundles.sweep?.splitting });
    expect(bundles.sweep?.install).toEqual([]);
  });

  it("keeps the queue's visibility timeout at least 6× the digest function's timeout", () => {
    const { subscriber } = one("QueueSubscriber", "DigestQueue").args as {
      subscriber: Record<string, unknown>;
    };
    const visibility = seconds(one("Queue", "DigestQueue").args.visibilityTimeout);
    expect(seconds(subscriber.timeout)).toBeGreaterThan(0);
    expect(visibility).toBeGreaterThanOrEqual(6 * seconds(subscriber.timeout));
    expect(visibility).toBeLessThanOrEqual(43_200);
  });

  it("passes the deploying shell's checkpoint-store settings to both functions, and no others", () => {
    const { subscriber } = one("QueueSubscriber", "DigestQueue").args as {
      subscriber: { environment?: Record<string, string> };
    };
    const sweep = one("Cron", "NightlySweep").args.function as Record<string, unknown>;
    // The digest function's other variables are its digester settings (tested above).
    const checkpointSettings = Object.fromEntries(
      Object.entries(subscriber.environment ?? {}).filter(
        ([name]) => name !== "DIGEST_MODEL" && !name.startsWith("OPENAI_COMPATIBLE_"),
      ),
    );
    expect(checkpointSettings).toEqual(DEPLOY_ENVIRONMENT);
    expect(sweep.environment).toEqual(DEPLOY_ENVIRONMENT);
  });

  it("runs the sweep nightly at 03:00 UTC with the databases and the queue only", () => {
    const cron = one("Cron", "NightlySweep").args;
    const sweep = cron.function as Record<string, unknown>;
    expect(cron.schedule).toBe("cron(0 3 * * ? *)");
    expect(sweep.handler).toBe("functions/sweep.handler");
    expect(sweep.runtime).toBe("nodejs22.x");
    expect(linkedNames(sweep)).toEqual(["CheckpointDatabaseUrl", "DatabaseUrl", "DigestQueue"]);
  });

  it("declares the secrets: six for the stores and Anthropic, six for the digest model choice", () => {
    expect(
      created
        .filter((entry) => entry.kind === "Secret")
        .map((entry) => entry.name)
        .sort(),
    ).toEqual([
      "AnthropicApiKey",
      "CheckpointDatabaseUrl",
      "DatabaseUrl",
      "DigestModel",
      "OpenAiCompatibleBaseUrl",
      "OpenAiCompatibleKey",
      "OpenAiCompatibleModel",
      "OpenAiCompatibleOutputLimitField",
      "OpenAiCompatiblePrices",
      "RedisUrl",
      "UpstashRedisToken",
      "UpstashRedisUrl",
    ]);
  });

  it("alarms on any dead letter and on an hour-old job in the digest queue", () => {
    const alarms = created.filter((entry) => entry.kind === "MetricAlarm").map((entry) => entry.args);
    expect(alarms).toContainEqual(
      expect.objectContaining({
        namespace: "AWS/SQS",
        metricName: "ApproximateNumberOfMessagesVisible",
        dimensions: { QueueName: "DigestDeadLetterQueue-physical" },
        threshold: 0,
        comparisonOperator: "GreaterThanThreshold",
      }),
    );
    expect(alarms).toContainEqual(
      expect.objectContaining({
        namespace: "AWS/SQS",
        metricName: "ApproximateAgeOfOldestMessage",
        dimensions: { QueueName: "DigestQueue-physical" },
        threshold: 3600,
        comparisonOperator: "GreaterThanThreshold",
      }),
    );
  });

  it("retains and protects production resources only", () => {
    expect(config.app({ stage: "production" })).toMatchObject({ removal: "retain", protect: true });
    expect(config.app({ stage: "prod" })).toMatchObject({ removal: "retain", protect: true });
    expect(config.app({ stage: "dev" })).toMatchObject({ removal: "remove", protect: false });
  });
});
