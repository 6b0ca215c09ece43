/**
 * Where the functions read a thread's owning org: `checkpoint`, the org under the metadata
 * key (`CHECKPOINT_ORG_METADATA_KEY`) of the thread's first checkpoint (server-set, never
 * client-writable); `table`, the owner row the runtime records when it creates the thread
 * (`recordThreadOwner`), for apps whose checkpoint metadata a client can influence.
 */
export const THREAD_OWNER_SOURCES = ["checkpoint", "table"] as const;
export type ThreadOwnerSource = (typeof THREAD_OWNER_SOURCES)[number];
