// `npm start`: the demo with its post-turn path on the embedded queue. Each ended turn's
// event goes through the runtime's publisher, an in-process SQS FIFO queue and a local
// worker running the digest function's handler (functions/local/queued-passes.ts); the
// rest is the demo package's run (`runDemo`).
import { runDemo } from "@context-cleaner/demo";
import { reportFailure } from "../../packages/core/src/cli/report-failure";
import { createQueuedPasses, queuedPassLine } from "./queued-passes";

const write = (line: string) => process.stdout.write(`${line}\n`);

try {
  await runDemo(write, {
    betweenTurns: async (worker) =>
      createQueuedPasses(worker, {
        onPass: (pass) => write(queuedPassLine(pass)),
        warn: (line) => process.stderr.write(`${line}\n`),
      }),
  });
} catch (error) {
  const failure = reportFailure(error);
  process.stderr.write(`${failure.line}\n`);
  process.exitCode = failure.exitCode;
}
