import { readFile } from "node:fs/promises";
import { settingRows } from "@context-cleaner/core/worker";
import { describe, expect, it } from "vitest";

const config = await readFile(new URL("../sst.config.ts", import.meta.url), "utf8");

/** The settings a row of the table says `sst.config.ts` passes, by how. */
function deployed(how: "shell" | "stage secret"): string[] {
  return settingRows()
    .filter((row) => row.deployed === how)
    .map((row) => row.env)
    .sort();
}

describe("sst.config.ts", () => {
  it("passes from the deploying shell exactly the settings the table says it does", () => {
    const list = /const SHELL_SETTINGS = \[([\s\S]*?)\];/.exec(config)?.[1];
    expect(list).toBeDefined();
    const names = [...(list ?? "").matchAll(/^\s*"([A-Z0-9_]+)",/gm)].map((match) => match[1]).sort();
    expect(names).toEqual(deployed("shell"));
  });

  it("passes from stage secrets exactly the settings the table says it does", () => {
    const names = [...config.matchAll(/^\s*([A-Z0-9_]+): \w+\.value,/gm)].map((match) => match[1]).sort();
    expect(names).toEqual(deployed("stage secret"));
  });
});
