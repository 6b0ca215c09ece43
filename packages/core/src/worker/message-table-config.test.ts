import { InvalidOptionError } from "@context-cleaner/assembler";
import { describe, expect, it } from "vitest";
import { checkedMessageTableFromEnvironment } from "./message-table-config";

describe("checkedMessageTableFromEnvironment", () => {
  it("reads the table as messageTableFromEnvironment does when its names are valid", () => {
    expect(checkedMessageTableFromEnvironment({})).toBeUndefined();
    expect(
      checkedMessageTableFromEnvironment({
        CHECKPOINT_MESSAGE_TABLE: "app.thread_messages",
        CHECKPOINT_MESSAGES_FORMAT: "langchain",
      }),
    ).toEqual({ table: "app.thread_messages", format: "langchain" });
  });

  it.each([
    ["CHECKPOINT_MESSAGE_TABLE", { CHECKPOINT_MESSAGE_TABLE: "a.b.c" }],
    ["CHECKPOINT_MESSAGES_COLUMN", { CHECKPOINT_MESSAGE_TABLE: "t", CHECKPOINT_MESSAGES_COLUMN: "1x" }],
    ["CHECKPOINT_UPDATED_AT_COLUMN", { CHECKPOINT_MESSAGE_TABLE: "t", CHECKPOINT_UPDATED_AT_COLUMN: "a b" }],
    ["CHECKPOINT_MESSAGES_FORMAT", { CHECKPOINT_MESSAGE_TABLE: "t", CHECKPOINT_MESSAGES_FORMAT: "xml" }],
  ])("names %s when its value is not valid", (variable, environment) => {
    const error = (() => {
      try {
        checkedMessageTableFromEnvironment(environment);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(InvalidOptionError);
    expect(error).toMatchObject({ field: variable });
    expect((error as Error).message).toMatch(new RegExp(`^${variable} `));
  });
});
