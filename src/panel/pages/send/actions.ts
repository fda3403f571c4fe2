import type { FastifyInstance } from 'fastify';
import { parse } from '../../../http/validate.js';
import { toCredits } from '../../../accounts/credits.js';
import { callerById } from '../../../accounts/index.js';
import { SendBody } from '../../../features/sms/schemas.js';
import { sendSms } from '../../../features/sms/service.js';
import { textRulesOf } from '../../../features/sms/rules.js';
import { listRecipients, previewSend } from '../../../features/sms/compose.js';
import { accountOf, field, formatNumber, makeView, registerAction, type Section, type Shared } from '../../view.js';

/** The typed numbers (commas, spaces or lines) as /sms/send's comma-separated list. */
const typedNumbers = (text: string) =>
  text
    .split(/[\s,;]+/)
    .filter((n) => n !== '')
    .join(',');

/** A datetime-local value (Mexico City wall time) as /sms/send's date: YYYY-MM-DD HH:MM:SS. */
const sendDate = (value: string) =>
  value === '' ? undefined : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(value) ? `${value.replace('T', ' ')}:00` : value;

/** The live counter's answer (POST /panel/send/preview) and the send itself. */
export function registerSendActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  scope.post('/send/preview', { schema: { hide: true }, config: { panel: 'account' } }, async (request) => {
    const v = makeView(ctx, shared.assets(), request);
    const body = (request.body ?? {}) as Record<string, string>;
    const accountId = accountOf(v).id;
    const list = field(body, 'list');
    const { units, ...preview } = await previewSend(
      ctx,
      accountId,
      field(body, 'message').slice(0, 2000),
      async () => ({
        numbers: list ? await listRecipients(ctx, accountId, list) : typedNumbers(field(body, 'numbers')),
        fromList: list !== '',
      }),
    );
    const { length, max, text, changed, recipients, problem } = preview;
    return { length, max, text, changed, recipients, cost: formatNumber(v, toCredits(units)), problem };
  });

  registerAction(scope, shared, section, 'submit', async (_request, v, body) => {
    // The API's per-second send limit, on the same bucket (a sub-account without its own limit shares its parent's).
    const caller = await callerById(ctx, accountOf(v).id);
    await ctx.rateLimiter.consume(caller.rate_bucket, caller.rate_limit_per_sec);
    const fromList = field(body, 'list') !== '';
    const input = parse(
      SendBody,
      {
        numbers: fromList
          ? await listRecipients(ctx, accountOf(v).id, field(body, 'list'))
          : typedNumbers(field(body, 'numbers')),
        find_country_code: fromList ? 1 : 0,
        message: body.message ?? '',
        name: field(body, 'name') || undefined,
        date: sendDate(field(body, 'date')),
        sandbox: body.sandbox === '1' ? 1 : 0,
      },
      'sms_04',
    );
    const result = await sendSms(ctx, accountOf(v).id, input, textRulesOf(caller));
    return { done: 'sent_ok', count: result.total_messages };
  });
}
