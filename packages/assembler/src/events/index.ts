export { DeadlineExceededError, InvalidTurnEventError } from "../errors";
export {
  midTurnEventDeduplicationId,
  type TurnEventMessage,
  turnEventDeduplicationId,
  turnEventGroupId,
  turnEventMessage,
} from "./message-ids";
export type { IoRedisLike, NodeRedisLike, TurnLockRedis, TurnLockRedisClient } from "./redis-clients";
export type {
  ThreadTurnEnded,
  TurnEndedEvent,
  TurnEndedInput,
  TurnEventField,
  TurnEventProblem,
} from "./turn-event";
export {
  announcedTurn,
  describeTurnEventProblem,
  messageIdProblem,
  midTurnMark,
  normalizeTurnEndedAt,
  TURN_EVENT_LIMITS,
  toTurnEndedEvent,
  turnAnnouncement,
  turnEventProblems,
} from "./turn-event";
export type {
  SqsSendClient,
  TurnEventFailureReason,
  TurnEventLogger,
  TurnEventOutcome,
  TurnEventPublisher,
  TurnEventPublisherOptions,
  TurnEventSkipReason,
} from "./turn-event-publisher";
export { createTurnEventPublisher, TURN_EVENT_PUBLISHER_DEFAULTS } from "./turn-event-publisher";
export type { HoldTurnLockOptions, RedisTurnLockOptions } from "./turn-lock";
export { createRedisTurnLock, holdTurnLock, TURN_LOCK_DEFAULTS, turnLockKey } from "./turn-lock";
