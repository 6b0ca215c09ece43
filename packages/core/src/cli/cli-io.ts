/**
 * What the `context-cleaner` command reads and writes: its two output streams and its
 * environment. The command and its operations take it, so tests run them in memory
 * (`processIo` binds it to the process).
 */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  environment: Record<string, string | undefined>;
}
