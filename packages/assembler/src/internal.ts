/**
 * `@context-cleaner/assembler/internal`: what the sibling packages (the worker in
 * `@context-cleaner/core`, the storage in `@context-cleaner/db`) share with the assembler
 * and a runtime integrator does not need. No stability promise: names here may change
 * with any release.
 */
export type { DigestKind, LeftBehindReason, PassReason, PassStatus } from "./vocabulary";
export { DIGEST_KINDS, LEFT_BEHIND_REASONS, PASS_REASONS, PASS_STATUSES } from "./vocabulary";
