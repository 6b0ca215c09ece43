import type { CliIo } from "./cli-io";

/** The streams {@link processIo} writes to: `process` itself, or a stand-in in tests. */
export interface ProcessStreams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
  env: Record<string, string | undefined>;
  exit(code: number): void;
}

/**
 * The CLI's io over the process's streams. A stdout whose reader went away (EPIPE, as with
 * `context-cleaner clean t.json | head -c 10`) ends the command at once, quietly, with exit
 * code 0: the reader has what it wanted. Any other stream error is re-thrown.
 */
export function processIo(streams: ProcessStreams = process): CliIo {
  let closed = false;
  streams.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code !== "EPIPE") throw error;
    closed = true;
    streams.exit(0);
  });
  return {
    stdout: (text) => {
      if (!closed) streams.stdout.write(text);
    },
    stderr: (text) => {
      streams.stderr.write(text);
    },
    environment: streams.env,
  };
}
