import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Who accepts the messages submitted in the current request, recorded on
 * their campaign (`accepted_by`) for the message trace: `key:<api key id>`
 * (never the key), `smpp:<system id>`, `panel`. The front end that knows
 * sets it around its handler (the API's routes, the SMPP server's
 * submit_sm, the panel's pages); the send's writer reads it. Work the group
 * commit runs for a request runs in that request's context (GroupCommit.run).
 * Outside any (OTP resends by a job, automatic replies), it is null and the
 * campaign's source tells.
 */
const current = new AsyncLocalStorage<string>();

export const byApiKey = (keyId: number | string): string => `key:${keyId}`;
export const bySmppUser = (systemId: string): string => `smpp:${systemId}`;
export const BY_PANEL = 'panel';

/** Runs `work` with its submissions recorded as accepted by `by`. */
export function acceptingAs<T>(by: string, work: () => T): T {
  return current.run(by, work);
}

export const acceptedBy = (): string | null => current.getStore() ?? null;
