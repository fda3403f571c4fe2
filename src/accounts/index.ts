// The public surface of accounts: what features, commands and panel pages call (the queries stay in the stores).
export * from './store.js';
export { searchAccounts, totalBalance, type AccountRow } from './listing-store.js';
export { apiKeyHints, type KeyHint } from './key-hints.js';
