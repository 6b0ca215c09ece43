import {
  createDatabase,
  createDigestRepository,
  type Database,
  type DigestRepository,
} from "@context-cleaner/db";
import { afterAll, beforeAll } from "vitest";
import { describeOverlappingDeliveries } from "#test/core/conformance/overlapping-deliveries";
import {
  createScratchDatabase,
  requireTestPostgresUrl,
  type ScratchDatabase,
} from "#test/repo/services/postgres";

let scratch: ScratchDatabase;
let database: Database;
let repository: DigestRepository;

beforeAll(async () => {
  scratch = await createScratchDatabase(requireTestPostgresUrl(), "cc_claim");
  // A pool wide enough that the three runs' transactions really overlap on the server.
  database = await createDatabase(scratch.url, { maxConnections: 10 });
  await database.migrate();
  repository = createDigestRepository(database);
});

afterAll(async () => {
  await database?.close();
  await scratch?.drop();
});

describeOverlappingDeliveries("Debian postgres (node-postgres)", () => repository);
