import { describe, expect, it } from "vitest";
import { UsageError } from "../errors";
import { readSweepSettings, readWorkerSettings, settingRows } from "./settings";

const REQUIRED = {
  DIGEST_QUEUE_URL: "https://sqs.eu-west-1.amazonaws.com/123456789012/digest.fifo",
  DATABASE_URL: "postgres://app@127.0.0.1:5432/app",
  CHECKPOINT_DATABASE_URL: "postgres://reader@127.0.0.1:5432/agent",
};

/** A value each typed row refuses. */
const BAD: Record<string, string> = {
  url: "not a url",
  integer: "2.5",
  count: "0",
  choice: "something-else",
  switch: "true",
};

/** What a reader throws for these settings, or undefined. */
function refusal(read: () => unknown): string | undefined {
  try {
    read();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
}

describe("the settings table's reader", () => {
  const typed = settingRows().filter((row) => row.type.kind !== "text");

  it.each(typed.map((row) => [row.env, row] as const))(
    "refuses a bad %s the same way in a function as on the command line, naming it",
    (_env, row) => {
      const digester = row.env.startsWith("OPENAI_COMPATIBLE_")
        ? {
            DIGEST_MODEL: "openai-compatible",
            OPENAI_COMPATIBLE_API_KEY: "key",
            OPENAI_COMPATIBLE_MODEL: "m",
          }
        : {};
      const environment = { ...REQUIRED, ...digester, [row.env]: BAD[row.type.kind] };
      const read = row.readBy.includes("worker") ? readWorkerSettings : readSweepSettings;
      const inFunction = refusal(() => read({ environment }, "the function"));
      const onCommandLine = refusal(() => read({ environment, flags: {} }, "the command"));
      expect(inFunction).toBeDefined();
      expect(inFunction).toContain(row.env);
      expect(onCommandLine).toBe(
        row.flag ? inFunction?.replace(row.env, `--${row.flag} (or ${row.env})`) : inFunction,
      );
    },
  );

  it("reads a flag over its variable, and an alias as the flag", () => {
    const environment = { ...REQUIRED, CHECKPOINT_SCHEMA: "env" };
    expect(readSweepSettings({ environment, flags: { "checkpoint-schema": "flag" } })).toMatchObject({
      checkpointSchema: "flag",
    });
    expect(readSweepSettings({ environment, flags: { database: "postgres://other@h/db" } })).toMatchObject({
      databaseUrl: "postgres://other@h/db",
    });
  });

  it("takes an empty variable for an unset one", () => {
    expect(refusal(() => readWorkerSettings({ environment: { ...REQUIRED, DATABASE_URL: "" } }, "fn"))).toBe(
      "fn needs DATABASE_URL",
    );
  });

  it("names every variable once", () => {
    const names = settingRows().map((row) => row.env);
    expect(new Set(names).size).toBe(names.length);
  });
});
