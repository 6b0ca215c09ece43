import { PGlite } from "@electric-sql/pglite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDatabase } from "./database";
import type { Database } from "./database-types";
import { createDigestRepository } from "./digest-repository";
import { DatabaseNotMigratedError, MigrationPrivilegeError, MissingOrganizationError } from "./errors";

// One PGlite per file (creation takes seconds), never migrated: what a first run meets.
let pglite: PGlite;
let database: Database;

beforeAll(async () => {
  pglite = await PGlite.create();
  database = await createDatabase("pglite://", { pglite });
});

afterAll(async () => {
  await database?.close();
  await pglite?.close();
});

describe("first-run errors say what to do", () => {
  it("an unmigrated database: every load says to run the migrations, naming the missing role", async () => {
    const repository = createDigestRepository(database);
    for (const load of [
      () => repository.loadThreadDigests("org-1", "thread-1"),
      () => repository.getPass("org-1", "thread-1"),
    ]) {
      const error = await load().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(DatabaseNotMigratedError);
      expect(error).toMatchObject({ code: "database_not_migrated", sqlState: "22023", retryable: false });
      expect((error as Error).message).toContain("run the migrations");
      expect((error as Error).message).toContain('role "app_user" does not exist');
    }
  });

  it("migrating as a schema owner without CREATEROLE names the privilege and the roles to create first", async () => {
    await pglite.exec(`
      CREATE ROLE schema_owner NOLOGIN NOSUPERUSER NOCREATEROLE;
      GRANT CREATE ON DATABASE postgres TO schema_owner;
      ALTER SCHEMA public OWNER TO schema_owner;
      SET ROLE schema_owner;
    `);
    try {
      const error = await database.migrate().catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MigrationPrivilegeError);
      expect(error).toMatchObject({ code: "migration_privilege", sqlState: "42501", retryable: false });
      const message = (error as Error).message;
      expect(message).toContain("CREATEROLE");
      expect(message).toContain("CREATE ROLE app_user");
      expect(message).toContain("CREATE ROLE app_sweeper");
      expect(message).toContain("WITH ADMIN OPTION");
    } finally {
      await pglite.exec("RESET ROLE");
    }
  });

  it.each(["undefined", "null"])(
    'a turn without an org id: the repository refuses orgId "%s", naming the field',
    async (orgId) => {
      const error = await createDigestRepository(database)
        .loadThreadDigests(orgId, "thread-1")
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(MissingOrganizationError);
      expect((error as Error).message).toContain("orgId");
      expect((error as Error).message).toContain(`the string "${orgId}"`);
      expect((error as Error).message).toContain("configurable.org_id");
    },
  );
});
