import { describe, expect, it } from "vitest";
import { MissingDatabaseUrlError, UnsupportedDatabaseUrlError } from "./errors";
import { createServerDatabase } from "./server";

describe("createServerDatabase picks the driver from the URL, without I/O", () => {
  it.each([
    ["postgresql://u:p@ep-cool-1.us-east-2.aws.neon.tech/neondb?sslmode=require", undefined, "neon"],
    ["postgres://u:p@ep-cool-1-pooler.us-east-2.aws.neon.tech/neondb", undefined, "neon"],
    ["postgres://u:p@mydb.abc123.eu-west-1.rds.amazonaws.com:5432/app", undefined, "pg"],
    ["postgres://app:secret@127.0.0.2:5455/app", undefined, "pg"],
    ["postgresql://u@postgres/app", undefined, "pg"],
    ["postgres://u@127.0.0.1:5433/app", "neon", "neon"],
    ["postgres://u:p@ep-cool-1.us-east-2.aws.neon.tech/neondb", "pg", "pg"],
  ] as const)("%s (driver %s) → %s", async (url, driver, expected) => {
    // Nothing listens at these addresses: opening does no I/O, only the first operation connects.
    const database = await createServerDatabase(url, driver ? { driver } : {});
    try {
      expect(database.driver).toBe(expected);
      expect(database.description).not.toMatch(/secret|:p@/);
    } finally {
      await database.close();
    }
  });

  it("refuses an embedded or unset URL: a server bundle carries no PGlite", async () => {
    await expect(createServerDatabase("pglite://")).rejects.toBeInstanceOf(UnsupportedDatabaseUrlError);
    await expect(createServerDatabase(undefined)).rejects.toBeInstanceOf(MissingDatabaseUrlError);
    await expect(createServerDatabase("mysql://u@h/db")).rejects.toBeInstanceOf(UnsupportedDatabaseUrlError);
  });
});
