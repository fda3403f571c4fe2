/* Helpers for the reports tests (not part of the service). */
import type { AppContext } from '../../context.js';
import { formatLocalDate } from '../../lib/time.js';
import { writeSend } from '../../messaging/send.js';
import type { SendRequest } from '../../messaging/types.js';

/** The part of the test harness these helpers use (kept structural so the build does not pull test code in). */
interface Reply {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}
interface Harness {
  ctx: AppContext;
  post(url: string, body: unknown, apikey?: string): Promise<Reply>;
}

const DAY = 86_400_000;
/** A period around now wide enough that a run near local midnight still covers it. */
export const around = () => ({
  start_date: formatLocalDate(Date.now() - DAY),
  end_date: formatLocalDate(Date.now() + DAY),
});

export function tools(get: () => Harness) {
  const submit = (accountId: number, numbers: string[], extra: Partial<SendRequest> = {}) =>
    get()
      .ctx.db.kysely.transaction()
      .execute(async (trx) => {
        const req: SendRequest = {
          accountId,
          channel: 'sms',
          source: 'sms',
          recipients: numbers.map((n) => ({ countryCode: '52', number: `52${n}` })),
          text: 'Hola',
          ...extra,
        };
        return (await writeSend(trx, get().ctx, [req], 'queued')).results[0];
      });
  const generate = (apikey: string, body: Record<string, unknown> = around()) =>
    get().post('/reports/generate', body, apikey);
  const setCreated = (ids: number[], at: number) =>
    get().ctx.db.kysely.updateTable('messages').set({ created_at: at }).where('id', 'in', ids).execute();
  return { submit, generate, setCreated };
}
