import { recordAudit, type AuditInput } from '../audit/service.js';
import { CliError } from '../cli/runner.js';
import type { Executor } from '../db/engine.js';
import { badRequest } from '../http/errors.js';
import { SmppUserProblem } from '../features/smpp-users/schemas.js';
import type { ApiActor } from './schemas.js';

/**
 * Runs a change through the service the CLI calls: what it refuses (a CliError, an SmppUserProblem: what the operator
 * typed) is a 400 with the endpoint's code and the service's own message, never a 500. The refusal stays the error's
 * `cause` (never answered), for the panel to say it in its words.
 */
export async function refusedAs<T>(code: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof CliError || err instanceof SmppUserProblem)
      throw Object.assign(badRequest(code, err.message), { cause: err });
    throw err;
  }
}

/** The audit entry of a change made through the API, as the CLI names the change (`carriers.add`). */
export const recordApiChange = (db: Executor, by: ApiActor, entry: Omit<AuditInput, 'actor' | 'address'>) =>
  recordAudit(db, { ...by, ...entry });
