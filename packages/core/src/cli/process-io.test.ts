import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { processIo } from "./process-io";

function streams() {
  const stdout = new PassThrough();
  const written: string[] = [];
  stdout.on("data", (chunk: Buffer) => written.push(chunk.toString("utf8")));
  const exits: number[] = [];
  return {
    stdout,
    stderr: new PassThrough(),
    env: {},
    exit: (code: number) => exits.push(code),
    written,
    exits,
  };
}

describe("processIo", () => {
  it("on EPIPE (the reader went away) exits 0 at once and drops later writes", async () => {
    const fake = streams();
    const io = processIo(fake);
    io.stdout("first");
    await new Promise((resolve) => setImmediate(resolve));
    fake.stdout.emit("error", Object.assign(new Error("write EPIPE"), { code: "EPIPE" }));
    io.stdout("second");
    await new Promise((resolve) => setImmediate(resolve));
    expect(fake.exits).toEqual([0]);
    expect(fake.written.join("")).toBe("first");
  });

  it("re-throws any other stdout error", () => {
    const fake = streams();
    processIo(fake);
    expect(() => fake.stdout.emit("error", Object.assign(new Error("no space"), { code: "ENOSPC" }))).toThrow(
      "no space",
    );
    expect(fake.exits).toEqual([]);
  });
});
