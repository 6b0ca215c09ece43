/**
 * `@context-cleaner/core/langgraph`: checkpoint readers over LangGraph savers. Kept out of
 * the core index so that importing core never loads LangGraph or LangChain.
 */
export type { CheckpointTupleSource, LangGraphReaderOptions } from "./langgraph-reader";
export { LANGGRAPH_READER_DEFAULTS, LangGraphCheckpointReader } from "./langgraph-reader";
export type { PostgresCheckpointReader, PostgresCheckpointReaderOptions } from "./postgres-reader";
export { createPostgresCheckpointReader, POSTGRES_READER_DEFAULTS } from "./postgres-reader";
