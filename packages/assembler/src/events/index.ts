export { DeadlineExceededError, InvalidTurnEventError } from "../errors";
export { turnEventDeduplicationId, turnEventGroupId } from "./message-ids";
export type { IoRedisLike, NodeRedisLike, TurnLockRedis, TurnLockRedisClient } from "./redis-clients";
export type { TurnEndedEvent, TurnEndedInput } from "./turn-event";
export { normalizeTurnEndedAt, TURN_EVENT_LIMITS, toTurnEndedEvent } from "./turn-event";
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
