export { contextDigest } from "./context-digest";
export { appSweeperRole, appUserRole, ROLE_NAMES } from "./roles";
export { spendLedger } from "./spend-ledger";
export { threadPass } from "./thread-pass";
