import { eq } from "drizzle-orm";
import type { Database } from "./database-types";
import { threadOwner } from "./schema/thread-owner";
import { requireId, requireOrganizationId } from "./validation";

/**
 * Records that `orgId` owns `threadId`, as the runtime does when it creates the thread: the
 * first org to record a thread owns it for good. Runs under the org's row-level security,
 * so it learns nothing of another org's row but that one exists.
 * @returns whether `orgId` owns the thread now (it was recorded here or before), `false`
 *   when another org does.
 * @throws {InvalidStorageInputError} for an empty or unstorable thread id.
 */
export async function recordThreadOwner(
  database: Database,
  orgId: string,
  threadId: string,
): Promise<boolean> {
  const organization = requireOrganizationId(orgId);
  const thread = requireId(threadId, "threadId");
  return database.withOrganization(organization, async (transaction) => {
    const inserted = await transaction
      .insert(threadOwner)
      .values({ orgId: organization, threadId: thread })
      // A row of any org conflicts, visible or not: the first writer stays the owner.
      .onConflictDoNothing({ target: threadOwner.threadId })
      .returning({ threadId: threadOwner.threadId });
    if (inserted.length === 1) return true;
    const own = await transaction
      .select({ threadId: threadOwner.threadId })
      .from(threadOwner)
      .where(eq(threadOwner.threadId, thread));
    return own.length === 1;
  });
}

/**
 * The org that owns `threadId`, as `app_sweeper` (which reads the owner rows' two columns of
 * every org), or null when the runtime recorded no owner.
 * @throws {InvalidStorageInputError} for an empty or unstorable thread id.
 */
export async function getThreadOwner(database: Database, threadId: string): Promise<string | null> {
  const thread = requireId(threadId, "threadId");
  const rows = await database.withSweeper((transaction) =>
    transaction
      .select({ orgId: threadOwner.orgId })
      .from(threadOwner)
      .where(eq(threadOwner.threadId, thread)),
  );
  return rows[0]?.orgId ?? null;
}
