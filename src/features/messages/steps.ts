import type { traceMessages } from './service.js';
import type { AcceptedBy } from './accepted-by.js';

export type Traced = Awaited<ReturnType<typeof traceMessages>>['messages'][number];

function whoAccepted(by: AcceptedBy): string {
  if ('key_id' in by) return `API key ${by.key_id}${by.key ? ` (${by.key})` : ''}${by.key_revoked ? ', revoked' : ''}`;
  if ('system_id' in by) return `SMPP user ${by.system_id}`;
  return by.kind;
}

const answer = (code: string | null, error: string) => (code ? `${code} ${error}` : error);

/** A traced message as the lines of its history, in order: the text of `messages trace` and the panel's trace page. */
export const traceSteps = (m: Traced): string[] =>
  [
    m.accepted.at &&
      `accepted ${m.accepted.at} by ${whoAccepted(m.accepted.by)} (${m.accepted.source}, ${m.accepted.campaign})`,
    `charged ${m.charged.credits}${m.charged.sandbox ? ' (sandbox)' : ''}`,
    m.routed &&
      `routed to ${m.routed.carrier}: ${m.routed.reason ?? '—'}${m.routed.cost ? `, cost ${m.routed.cost}` : ''}${m.routed.cost_now ? `, cost now ${m.routed.cost_now}` : ''}`,
    ...m.failed_attempts.map(
      (f) => `hand-off failed ${f.at}${f.carrier ? ` at ${f.carrier}` : ''}: ${answer(f.code, f.error)}`,
    ),
    m.handed_over &&
      `handed over ${m.handed_over.at}${m.handed_over.carrier_id ? `, id ${m.handed_over.carrier_id}` : ''}`,
    m.receipt &&
      `receipt ${m.receipt.status_code}${m.receipt.stat ? ` (stat ${m.receipt.stat}${m.receipt.err ? `, err ${m.receipt.err}` : ''})` : ''} at ${m.receipt.at}${m.receipt.after_ms !== null ? ` (+${m.receipt.after_ms} ms)` : ''}`,
    m.error && `error: ${m.error}`,
    ...m.webhooks.map(
      (w) =>
        `webhook ${w.type} ${w.state}: ${w.attempts.map((a) => `${a.at} ${a.http_status ?? a.error ?? ''}`).join('; ') || 'no attempt yet'}`,
    ),
    m.refund && `refunded ${m.refund.credits} at ${m.refund.at}`,
  ].filter((s): s is string => Boolean(s));

/** `messages trace` without --json: each message's heading, then its history. */
export function traceText(result: { messages: Traced[] }): string {
  if (result.messages.length === 0) return 'no message found';
  return result.messages
    .map(
      (m) =>
        `${m.reference} — ${m.account}, ${m.channel} +${m.number}: ${m.status} (${m.status_code ?? '—'})\n` +
        traceSteps(m)
          .map((s) => `  ${s}`)
          .join('\n'),
    )
    .join('\n\n');
}
