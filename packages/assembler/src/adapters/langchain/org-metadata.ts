import { InvalidOptionError } from "../../errors";
import type { TurnContext } from "../../turn-ports";

/** The run config a LangGraph saver's `put` receives (`RunnableConfig`), as far as it is read here. */
export interface SaverRunConfig {
  configurable?: Record<string, unknown>;
}

/**
 * The part of a LangGraph `BaseCheckpointSaver` that {@link withOrgMetadata} changes: `put`,
 * which writes a checkpoint with its metadata. `MemorySaver`, `PostgresSaver`, `SqliteSaver`
 * and any other saver have it.
 */
export interface CheckpointPutter {
  // biome-ignore lint/suspicious/noExplicitAny: the saver's own checkpoint and version types, passed through untouched.
  put(config: SaverRunConfig, checkpoint: any, metadata: any, newVersions: any): Promise<unknown>;
}

/** Options of {@link withOrgMetadata}. */
export interface OrgMetadataOptions {
  /** The `configurable` key the server fills with the authenticated caller's org. @default "org_id" */
  configurableKey?: string;
  /** The checkpoint-metadata key the worker reads the org from. @default "org_id" */
  metadataKey?: string;
}

/** Defaults of {@link OrgMetadataOptions}. */
export const ORG_METADATA_DEFAULTS = { configurableKey: "org_id", metadataKey: "org_id" } as const;

function keyOption(name: keyof OrgMetadataOptions, value: string | undefined, fallback: string): string {
  const key = value ?? fallback;
  if (typeof key !== "string" || key === "") {
    throw new InvalidOptionError(`${name}: must be a non-empty string`, name);
  }
  return key;
}

/**
 * A LangGraph checkpoint saver that writes the run's org into every checkpoint's metadata:
 * `put` adds `configurable.org_id` (the server-set org of the run) under `metadata.org_id`,
 * where the worker's owner check and the nightly sweep's directory read it. Everything else
 * is the saver's own: reads, pending writes and deletes go to it unchanged, and so does a
 * `put` of a run whose `configurable` names no org (its checkpoints then name none, so the
 * worker refuses the thread rather than guess its owner).
 *
 * The org must come from the authenticated caller, set by the server in `configurable`,
 * never from the request body: it decides which org's digests a thread may get.
 *
 * @throws {InvalidOptionError} for an empty key.
 * @example
 * const checkpointer = withOrgMetadata(PostgresSaver.fromConnString(url));
 * const agent = createAgent({ model, tools, checkpointer, middleware: [cleaner] });
 * await agent.invoke(input, { configurable: { thread_id: threadId, org_id: session.orgId } });
 */
export function withOrgMetadata<Saver extends CheckpointPutter>(
  saver: Saver,
  options: OrgMetadataOptions = {},
): Saver {
  const configurableKey = keyOption(
    "configurableKey",
    options.configurableKey,
    ORG_METADATA_DEFAULTS.configurableKey,
  );
  const metadataKey = keyOption("metadataKey", options.metadataKey, ORG_METADATA_DEFAULTS.metadataKey);
  const put: CheckpointPutter["put"] = (config, checkpoint, metadata, newVersions) => {
    const orgId = config?.configurable?.[configurableKey];
    const stamped =
      typeof orgId === "string" && orgId !== "" ? { ...metadata, [metadataKey]: orgId } : metadata;
    return saver.put(config, checkpoint, stamped, newVersions);
  };
  // A proxy, not a subclass: the saver keeps its class (and its private fields, which its
  // methods reach through `this`, bound to the saver itself).
  return new Proxy(saver, {
    get(target, property) {
      if (property === "put") return put;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * The org of a LangChain or LangGraph turn, from `configurable[key]` (set by the server
 * for every run).
 * @throws {InvalidOptionError} when the run names no org: an injected function that throws
 *   never fails the turn, which then goes on uncleaned, instead of loading the digests of an
 *   org named "undefined".
 * @example
 * const loadDigests: LoadDigests = (threadId, turn) => repository.loadThreadDigests(orgIdOf(turn), threadId);
 */
export function orgIdOf(turn: TurnContext, key: string = ORG_METADATA_DEFAULTS.configurableKey): string {
  const orgId = turn.configurable[key];
  if (typeof orgId !== "string" || orgId === "") {
    throw new InvalidOptionError(
      `configurable.${key} is not set for thread ${turn.threadId}: the server must pass the caller's org in every run's configurable`,
      `configurable.${key}`,
    );
  }
  return orgId;
}
