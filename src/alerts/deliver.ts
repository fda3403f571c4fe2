import type { AppContext } from '../context.js';
import { RetryLater, type JobContext } from '../jobs/worker.js';
import { signatureHeaders } from '../outbound/signature.js';
import { MAX_RETRIES, retryDelayMs } from '../outbound/schedule.js';

/** Per attempt, as for a customer's webhook. */
const TIMEOUT_MS = 10_000;

/**
 * The job of one alert delivery. The operator's webhook gets the alert's JSON
 * body by POST, signed with OPERATOR_WEBHOOK_SECRET (Standard Webhooks; the
 * `webhook-id` is the same for every attempt); any 2xx answer delivers it.
 * Email goes through SMTP_URL to ALERT_EMAIL_TO. A failure is retried on the
 * customer webhooks' schedule (WEBHOOK_RETRY_BASE_MS doubling, 25 retries),
 * then the delivery is failed.
 */
export async function deliverAlert(ctx: AppContext, deliveryId: number, job: JobContext['job']): Promise<void> {
  const db = ctx.db.kysely;
  const row = await db.selectFrom('alert_deliveries').selectAll().where('id', '=', deliveryId).executeTakeFirst();
  if (!row || row.state !== 'pending') return;
  const error = row.channel === 'webhook' ? await postAlert(ctx, row.id, row.body) : await mailAlert(ctx, row.body);
  const now = Date.now();
  const last = job.attempts > MAX_RETRIES;
  await db
    .updateTable('alert_deliveries')
    .set({
      attempts: job.attempts,
      last_error: error,
      state: error === null ? 'delivered' : last ? 'failed' : 'pending',
      delivered_at: error === null ? now : null,
    })
    .where('id', '=', row.id)
    .execute();
  if (error === null) return;
  if (last) return ctx.log.warn({ alert: row.id, channel: row.channel, error }, 'an operator alert was not delivered');
  throw new RetryLater(retryDelayMs(job.attempts, ctx.config.WEBHOOK_RETRY_BASE_MS), error);
}

/** The error of one POST to the operator's webhook, or null when it answered 2xx. */
async function postAlert(
  ctx: Pick<AppContext, 'config' | 'outbound'>,
  id: number,
  body: string,
): Promise<string | null> {
  const { config } = ctx;
  const url = config.OPERATOR_WEBHOOK_URL;
  if (!url || !config.OPERATOR_WEBHOOK_SECRET) return 'OPERATOR_WEBHOOK_URL is no longer set';
  const headers = signatureHeaders(config.OPERATOR_WEBHOOK_SECRET, `alert_${id}`, Math.floor(Date.now() / 1000), body);
  // The operator's own address, not a customer's: private networks are allowed.
  const answer = await ctx.outbound.send(url, true, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body,
    timeoutMs: TIMEOUT_MS,
  });
  if (answer.status !== null && answer.status >= 200 && answer.status < 300) return null;
  return answer.error ?? `answered ${answer.status}`;
}

/** The error of one email of the alert, or null once the SMTP server accepted it. */
async function mailAlert(ctx: Pick<AppContext, 'config' | 'alertMail'>, body: string): Promise<string | null> {
  const { SMTP_URL, ALERT_EMAIL_TO, ALERT_EMAIL_FROM } = ctx.config;
  if (!SMTP_URL || !ALERT_EMAIL_TO) return 'SMTP_URL or ALERT_EMAIL_TO is no longer set';
  const transport = await ctx.alertMail.transport(SMTP_URL);
  const alert = JSON.parse(body) as Record<string, unknown>;
  const about = alert.carrier ?? alert.account ?? '';
  try {
    await transport.sendMail({
      from: ALERT_EMAIL_FROM,
      to: ALERT_EMAIL_TO,
      subject: `Mensajero alert: ${String(alert.type)}${about ? ` (${String(about)})` : ''}`,
      text: `${JSON.stringify(alert, null, 2)}\n`,
    });
    return null;
  } catch (err) {
    return withoutCredentials((err as Error).message ?? String(err), SMTP_URL).slice(0, 500);
  }
}

/** An error text with the SMTP URL's user and password taken out (they never reach a log or a row). */
function withoutCredentials(text: string, smtpUrl: string): string {
  const url = new URL(smtpUrl);
  let out = text;
  for (const secret of [url.password, decodeURIComponent(url.password), url.username]) {
    if (secret) out = out.split(secret).join('***');
  }
  return out;
}
