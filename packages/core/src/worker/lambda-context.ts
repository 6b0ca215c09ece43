import { randomUUID } from "node:crypto";
import type { Context } from "aws-lambda";

/** What a Lambda context is made of, for a run outside Lambda. */
export interface LambdaContextFields {
  functionName: string;
  /** The function's timeout: `getRemainingTimeInMillis()` counts down from it. */
  timeoutMs: number;
  /** @default 1024 */
  memoryLimitInMB?: number;
  /** The time source. @default Date.now */
  now?: () => number;
}

/**
 * A Lambda `Context` for an invocation outside Lambda (the local worker, tests): its
 * deadline starts now, and the deprecated callback methods throw if called.
 */
export function lambdaContext(fields: LambdaContextFields): Context {
  const now = fields.now ?? Date.now;
  const deadline = now() + fields.timeoutMs;
  const deprecated = () => {
    throw new Error("callback-style Lambda context methods are not supported");
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName: fields.functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${fields.functionName}`,
    memoryLimitInMB: String(fields.memoryLimitInMB ?? 1024),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${fields.functionName}`,
    logStreamName: "local",
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: deprecated,
    fail: deprecated,
    succeed: deprecated,
  };
}
