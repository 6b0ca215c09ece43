/**
 * `@context-cleaner/db/internal`: what the storage package shares with its sibling
 * `@context-cleaner/core` and an application does not need. No stability promise: names
 * here may change or go away in any release.
 */
export { decodePageCursor, encodePageCursor } from "./page-cursor";
