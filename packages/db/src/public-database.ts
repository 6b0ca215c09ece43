import { createDigestRepository as repositoryOver } from "./digest-repository";
import type { Database } from "./public-types";
import type { DigestRepository } from "./repository-types";

/**
 * The storage port over a {@link Database}. Every method but `listLeftBehind`,
 * `countLeftBehind`, `threadsWithPass` and `getThreadOwner` (the sweep's, as `app_sweeper`) takes an org id and runs in a
 * transaction scoped to it under row-level security.
 * @example
 * const repository = createDigestRepository(await createDatabase(process.env.DATABASE_URL));
 * const digests = await repository.loadThreadDigests(orgId, threadId);
 */
export function createDigestRepository(database: Database): DigestRepository {
  // The same object: the repository's queries see its transactions as the query builder's.
  return repositoryOver(database as unknown as Parameters<typeof repositoryOver>[0]);
}
