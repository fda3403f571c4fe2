import { findWebhook } from '../../../webhooks/service.js';
import { recordEvents } from '../../../webhooks/index.js';
import { formatCompact } from '../../../lib/time.js';
import { accountOf, refuse, type Shared, type View } from '../../view.js';

/**
 * A `confirmation` event with a reference starting `test-` and
 * extra_params {"test":true}, recorded and delivered like any other (same
 * signature, retries and log), so the receiver is tested end to end.
 */
export async function sendTestEvent(shared: Shared, v: View) {
  const { ctx } = shared;
  const account = accountOf(v);
  const hook = await findWebhook(ctx.db.kysely, account.id);
  if (!hook || hook.status !== 1) throw refuse(400, 'test_event_needs_webhook');
  const now = Date.now();
  const reference = `test-${now.toString(36)}`;
  await ctx.db.kysely.transaction().execute((trx) =>
    recordEvents(trx, [
      {
        accountId: account.id,
        type: 'confirmation',
        reference,
        payload: {
          type: 'confirmation',
          reference,
          status: '0',
          number: '520000000000',
          date: formatCompact(now),
          extra_params: '{"test":true}',
        },
      },
    ]),
  );
  ctx.worker.nudge();
  return { done: 'test_event_sent' as const };
}
