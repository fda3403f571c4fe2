/* Shared setup of the price, carrier cost and margin suites (src/messaging/prices*.test.ts, src/carriers/costs.test.ts, src/features/reports/margins*.test.ts). */
import { expect } from 'vitest';
import { accountCommands } from '../../src/features/accounts/cli.js';
import { carrierCommands } from '../../src/carriers/cli.js';
import { marginCommands } from '../../src/features/reports/cli.js';
import { priceCommands } from '../../src/features/prices/cli.js';
import { runCommands } from './cli.js';
import type { Harness, TestAccount } from './harness.js';

/** Prices and costs apply within CARRIER_POLL_MS: fast here. */
export const PRICES_ENV = { CARRIER_POLL_MS: '50', DISPATCH_RETRY_MS: '50' };

/** Waits out the price cache of the process (CARRIER_POLL_MS of PRICES_ENV). */
export const afterPoll = () => new Promise((r) => setTimeout(r, 80));

export function priceTools(get: () => Harness) {
  let n = 0;
  /** `mensajero <args>` in this process, as --json prints it. */
  const cli = (...args: string[]) =>
    runCommands(get().ctx, [accountCommands, priceCommands, carrierCommands, marginCommands], args);
  /** A command that must succeed. */
  const ok = async (...args: string[]) => {
    const r = await cli(...args);
    expect(r?.error).toBeUndefined();
    return r;
  };

  /** A sub-account of `parent` with `credits` moved to it. */
  async function subOf(parent: TestAccount, credits = 0): Promise<TestAccount & { plainEmail: string }> {
    const h = get();
    const plainEmail = `sub${++n}-${parent.id}@example.com`;
    const r = await h.post('/manager/subaccount/add', { email: plainEmail, password: 'secret123' }, parent.apikey);
    expect(r.body.code).toBe('subaccount_01');
    if (credits > 0)
      expect(
        (await h.post('/manager/subaccount/credits/manage', { email: plainEmail, type: 1, credits }, parent.apikey))
          .body.code,
      ).toBe('subaccount_01');
    const row = await h.ctx.db.kysely
      .selectFrom('accounts')
      .select(['id', 'email'])
      .where('parent_id', '=', parent.id)
      .orderBy('id', 'desc')
      .executeTakeFirstOrThrow();
    return { id: row.id, email: row.email, apikey: r.body.apikey, plainEmail };
  }

  /** POST /sms/send that must be accepted; its body. */
  async function send(apikey: string, numbers: string, extra: Record<string, unknown> = {}) {
    const r = await get().post('/sms/send', { numbers, message: 'Hola', ...extra }, apikey);
    expect(r.body.code).toBe('sms_11');
    return r.body as { credit: number; references: Array<{ reference: string; number: string }> };
  }

  const message = (reference: string) =>
    get().ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  const balance = async (apikey: string) => (await get().post('/credits/consult', {}, apikey)).body.credit as number;

  return { cli, ok, subOf, send, message, balance };
}
