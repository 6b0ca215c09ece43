/**
 * `@context-cleaner/core/worker`: the digest worker and the sweep as the deployed functions
 * run them, for any host: the SQS partial-batch handler of digest jobs and the dependencies
 * it runs on (built from configuration values), the polling loop that plays Lambda's SQS
 * event source outside Lambda, the sweep's handler and dependencies, and the logger and
 * metrics contracts they report through. `context-cleaner worker` and `context-cleaner
 * sweep` run them from the command line; the Lambda functions wrap them too.
 */
export * from "./digest-dependencies";
export * from "./digest-handler";
export * from "./digest-model";
export * from "./disposition";
export * from "./function-database";
export * from "./in-process-sqs-client";
export * from "./lambda-context";
export * from "./local-worker";
export * from "./message-table-config";
export * from "./observability";
export * from "./settings";
export * from "./settings-config";
export * from "./sqs-event";
export * from "./sweep-dependencies";
export * from "./sweep-handler";
export * from "./sweep-settings";
export * from "./thread-owner-source";
