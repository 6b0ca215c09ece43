/**
 * `npm start`'s preflight (package.json "prestart" → scripts/check-node.cjs): on a Node older
 * than the engines field asks for, one line naming the version needed, exit 1; on this Node
 * (22, the repository's runtime), nothing. An older Node is simulated with a preload that
 * rewrites `process.versions.node` before the script reads it.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  engines: { node: string };
  scripts: Record<string, string>;
};

/** Runs the prestart command as npm does (a shell in the repository root), with `extraEnv`. */
async function runPrestart(extraEnv: Record<string, string>) {
  const command = pkg.scripts.prestart;
  if (command === undefined) throw new Error("package.json has no prestart script");
  try {
    const { stdout, stderr } = await promisify(execFile)("sh", ["-c", command], {
      cwd: ROOT,
      env: { ...process.env, ...extraEnv },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function pretendNode(version: string): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), "cc-preflight-"));
  const preload = join(dir, "pretend.cjs");
  writeFileSync(
    preload,
    `Object.defineProperty(process.versions, "node", { value: ${JSON.stringify(version)} });\n`,
  );
  return { NODE_OPTIONS: `--require ${preload}` };
}

describe("npm start's Node preflight", () => {
  it("runs before npm start and reads the version from the engines field (Node 22)", () => {
    expect(pkg.scripts.prestart).toBe("node scripts/check-node.cjs");
    expect(pkg.engines.node).toBe(">=22");
  });

  it.each(["18.19.0", "20.20.2", "21.7.3"])(
    "on Node %s: one line naming Node 22, exit 1",
    async (version) => {
      const result = await runPrestart(pretendNode(version));
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      const lines = result.stderr.split("\n").filter((line) => line !== "");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain("needs Node 22 or later");
      expect(lines[0]).toContain(`this is Node ${version}`);
    },
  );

  it.each(["22.0.0", "24.1.0"])("on Node %s: silent, exit 0", async (version) => {
    expect(await runPrestart(pretendNode(version))).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("on the Node running the tests: silent, exit 0", async () => {
    expect(await runPrestart({})).toEqual({ code: 0, stdout: "", stderr: "" });
  });
});
