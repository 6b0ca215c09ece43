import { createDatabase, createDigestRepository, type Database } from "@context-cleaner/db";
import { afterAll, beforeAll } from "vitest";
import { describeDigestStoreConformance } from "../../test/conformance/digest-store-conformance";
import type { DigestStore } from "../ports";
import { createInMemoryDigestStore } from "./in-memory-digest-store";

// One spec, both stores: the in-memory store must behave as the repository does.
let database: Database;
let repository: DigestStore;

beforeAll(async () => {
  database = await createDatabase();
  await database.migrate();
  repository = createDigestRepository(database);
});
afterAll(async () => {
  await database?.close();
});

const inMemory = createInMemoryDigestStore();
describeDigestStoreConformance("the in-memory store", () => inMemory);
describeDigestStoreConformance("the storage package's repository (PGlite)", () => repository);
