/**
 * Where the functions read a thread's owning org: `checkpoint`, the org under the metadata
 * key (`CHECKPOINT_ORG_METADATA_KEY`) of the thread's first checkpoint (server-set, never
 * client-writable); `table`, the owner row the runtime records when it creates the thread
 * (`recordThreadOwner`), for apps whose checkpoint metadata a client can influence.
 */
export const THREAD_OWNER_SOURCES = ["checkpoint", "table"] as const;
export type ThreadOwnerSource = (typeof THREAD_OWNER_SOURCES)[number];

/**
 * `THREAD_OWNER_SOURCE` as the edge reads it.
 * @throws {Error} for a value that is not one of {@link THREAD_OWNER_SOURCES}: a function
 *   that cannot tell who owns a thread must not start.
 */
export function parseThreadOwnerSource(value: string): ThreadOwnerSource {
  const source = THREAD_OWNER_SOURCES.find((known) => known === value);
  if (source === undefined) {
    throw new Error(
      `THREAD_OWNER_SOURCE must be one of ${THREAD_OWNER_SOURCES.join(", ")}, got ${JSON.stringify(value)}`,
    );
  }
  return source;
}
