export { contextDigest } from "./context-digest";
export { orgPolicy } from "./org-policy";
export { appSweeperRole, appUserRole, ROLE_NAMES } from "./roles";
export { spendLedger } from "./spend-ledger";
export { threadOwner } from "./thread-owner";
export { threadPass } from "./thread-pass";
