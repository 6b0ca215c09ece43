import type { Database } from "./database-types";
import {
  deleteThreadDigests,
  findReusableDigest,
  findReusableDigests,
  loadThreadDigests,
  summarizeThreadDigests,
  upsertDigests,
} from "./digest-queries";
import { claimThread, commitLeasedPass, holdsLease, releaseThread } from "./lease-queries";
import { countLeftBehind, listLeftBehind, threadsWithPass } from "./left-behind-query";
import { getThreadOwner, recordThreadOwner } from "./owner-queries";
import { getPass, recordLatestTurn, recordPass } from "./pass-queries";
import {
  deleteOrgPolicy,
  getOrgPolicy,
  loadTurnState,
  setOrgPolicy,
  summarizeOrgDigests,
} from "./policy-queries";
import { purgeContent, purgeOrganization, purgeThread } from "./purge-queries";
import type { DigestRepository } from "./repository-types";
import { getSpend, reserveSpend, settleSpend } from "./spend-queries";

/**
 * The storage port over a {@link Database}. Every method but `listLeftBehind`,
 * `countLeftBehind`, `threadsWithPass` and `getThreadOwner` (read across orgs, as `app_sweeper`) takes an org id
 * and runs in a transaction scoped to it under row-level security.
 * @example
 * const repository = createDigestRepository(await createDatabase(process.env.DATABASE_URL));
 * const digests = await repository.loadThreadDigests(orgId, threadId);
 */
export function createDigestRepository(database: Database): DigestRepository {
  return {
    upsertDigests: (orgId, rows) => upsertDigests(database, orgId, rows),
    loadThreadDigests: (orgId, threadId) => loadThreadDigests(database, orgId, threadId),
    findReusableDigest: (orgId, sha256) => findReusableDigest(database, orgId, sha256),
    findReusableDigests: (orgId, sha256s) => findReusableDigests(database, orgId, sha256s),
    deleteThreadDigests: (orgId, threadId) => deleteThreadDigests(database, orgId, threadId),
    purgeThread: (orgId, threadId) => purgeThread(database, orgId, threadId),
    purgeContent: (orgId, sha256) => purgeContent(database, orgId, sha256),
    purgeOrganization: (orgId, options) => purgeOrganization(database, orgId, options),
    summarizeThreadDigests: (orgId, threadId) => summarizeThreadDigests(database, orgId, threadId),
    reserveSpend: (orgId, day, amountUsd, budgetUsd, holdMs) =>
      reserveSpend(database, orgId, day, amountUsd, budgetUsd, holdMs),
    settleSpend: (orgId, day, reservedUsd, actualUsd) =>
      settleSpend(database, orgId, day, reservedUsd, actualUsd),
    getSpend: (orgId, day) => getSpend(database, orgId, day),
    recordPass: (orgId, threadId, pass) => recordPass(database, orgId, threadId, pass),
    getPass: (orgId, threadId) => getPass(database, orgId, threadId),
    recordLatestTurn: (orgId, threadId, update) => recordLatestTurn(database, orgId, threadId, update),
    claimThread: (orgId, threadId, claim) => claimThread(database, orgId, threadId, claim),
    releaseThread: (orgId, threadId, owner) => releaseThread(database, orgId, threadId, owner),
    holdsLease: (orgId, threadId, owner) => holdsLease(database, orgId, threadId, owner),
    commitLeasedPass: (orgId, threadId, commit) => commitLeasedPass(database, orgId, threadId, commit),
    listLeftBehind: (query) => listLeftBehind(database, query),
    countLeftBehind: (filter) => countLeftBehind(database, filter),
    threadsWithPass: (threads) => threadsWithPass(database, threads),
    recordThreadOwner: (orgId, threadId) => recordThreadOwner(database, orgId, threadId),
    getThreadOwner: (threadId) => getThreadOwner(database, threadId),
    loadTurnState: (orgId, threadId) => loadTurnState(database, orgId, threadId),
    getOrgPolicy: (orgId) => getOrgPolicy(database, orgId),
    setOrgPolicy: (orgId, policy, audit) => setOrgPolicy(database, orgId, policy, audit),
    deleteOrgPolicy: (orgId) => deleteOrgPolicy(database, orgId),
    summarizeOrgDigests: (orgId) => summarizeOrgDigests(database, orgId),
  };
}
