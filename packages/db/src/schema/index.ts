export { contextDigest } from "./context-digest";
export { appSweeperRole, appUserRole, ROLE_NAMES } from "./roles";
export { spendLedger } from "./spend-ledger";
export { PASS_STATUSES, threadPass } from "./thread-pass";
