// The public surface of accounts: what features, commands and panel pages call (the queries stay in the stores).
export * from './store.js';
export { MAX_REASON, reasonProblem, type LedgerKind, type Movement } from './ledger.js';
export {
  ACCOUNTS_PAGE_SIZE,
  emailsByIds,
  accountListing,
  listAccounts,
  MAX_ACCOUNT_SEARCH,
  searchAccounts,
  subaccountIds,
  totalBalance,
  type AccountListing,
  type AccountPage,
  type AccountRow,
} from './listing-store.js';
export { LEDGER_PAGE_SIZE, ledgerPage, ledgerPeriod, type LedgerEntryView, type LedgerPage } from './ledger-store.js';
export { apiKeyHints, type KeyHint } from './key-hints.js';
export * from './service.js';
export {
  issuePasswordReset,
  meetsPasswordRules,
  PASSWORD_MAX,
  PASSWORD_MIN,
  redeemPasswordReset,
  RESET_PATH,
  resetTokenAccount,
  setAccountPassword,
} from './passwords.js';
