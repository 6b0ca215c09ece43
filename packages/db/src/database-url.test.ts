import { describe, expect, it } from "vitest";
import { resolveDatabaseTarget } from "./database-url";
import { MissingDatabaseUrlError, UnsupportedDatabaseUrlError } from "./errors";

describe("resolveDatabaseTarget", () => {
  it.each([
    ["pglite://", { driver: "pglite", dataDir: undefined }],
    ["pglite://.context-cleaner/pglite", { driver: "pglite", dataDir: ".context-cleaner/pglite" }],
    ["pglite:///var/lib/cc", { driver: "pglite", dataDir: "/var/lib/cc" }],
    ["postgres://u:secret@127.0.0.1:5433/app", { driver: "pg", host: "127.0.0.1", port: 5433 }],
    ["postgresql://u@db.internal/app", { driver: "pg", host: "db.internal", port: 5432 }],
    ["postgresql://u:p@ep-cool-1.us-east-2.aws.neon.tech/neondb?sslmode=require", { driver: "neon" }],
    ["postgres://u:p@ep-cool-1-pooler.eu-central-1.aws.neon.tech/neondb", { driver: "neon" }],
    ["postgres://u:p@mydb.abc123.eu-west-1.rds.amazonaws.com:5432/app", { driver: "pg" }],
    ["postgres://u:p@postgres:5432/app", { driver: "pg" }],
    ["postgres://u:p@neon.tech.example.com/app", { driver: "pg" }],
  ])("resolves %s", (url, expected) => {
    expect(resolveDatabaseTarget(url)).toMatchObject(expected);
  });

  it.each([undefined, "", " "])("refuses %j: the embedded database only when asked for", (url) => {
    expect(() => resolveDatabaseTarget(url)).toThrow(MissingDatabaseUrlError);
  });

  it("never puts the password in the description", () => {
    expect(resolveDatabaseTarget("postgres://u:secret@127.0.0.1:5433/app").description).toBe(
      "postgres://127.0.0.1:5433/app",
    );
  });

  it("lets an explicit driver pick Neon for a local relay", () => {
    expect(resolveDatabaseTarget("postgres://u@127.0.0.1:5433/app", "neon").driver).toBe("neon");
  });

  it.each(["mysql://u@h/db", "sqlite:///tmp/x.db", "http://example.com", "just-a-path"])(
    "refuses %s with an error naming the scheme",
    (url) => {
      const error = (() => {
        try {
          resolveDatabaseTarget(url);
        } catch (caught) {
          return caught;
        }
      })();
      expect(error).toBeInstanceOf(UnsupportedDatabaseUrlError);
      expect((error as Error).message).toContain("Unsupported database URL scheme");
      expect((error as UnsupportedDatabaseUrlError).scheme).toBe(
        url.includes("://") ? `${url.split("://")[0]}://` : "(none)://",
      );
    },
  );

  it("refuses a pglite URL with a server driver", () => {
    expect(() => resolveDatabaseTarget("pglite://x", "pg")).toThrow(UnsupportedDatabaseUrlError);
  });
});
