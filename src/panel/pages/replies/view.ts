import type { FastifyInstance } from 'fastify';
import { accountReplies, type StoredReply } from '../../../features/mo-routes/service.js';

import { shownTime } from '../../time.js';
import { html } from '../../html.js';
import { accountOf, type Section, type Shared, type View } from '../../view.js';

/** `?before=<reply id>`: the page of replies older than that one; anything else, the newest page. */
const cursor = (raw: string | undefined): number | undefined =>
  raw !== undefined && /^[1-9]\d{0,14}$/.test(raw) ? Number(raw) : undefined;

/** What a reply answers: the message (its reference and text), or the MO route that gave it to the account. */
function answers(v: View, r: StoredReply) {
  if (r.reference) return html`<code>${r.reference}</code> ${r.message ?? ''}`;
  if (r.route_number === null && r.route_keyword === null) return r.route_id ? v.t('reply_route_gone') : '';
  // A route stores '' for "any".
  const route = [r.route_number || v.t('reply_any'), r.route_keyword || v.t('reply_any')].join(' · ');
  return v.t('reply_route', { route });
}

function replyTable(v: View, replies: StoredReply[]) {
  return html`<div class="scroll">
    <table class="stack" data-testid="replies">
      <thead>
        <tr>
          <th scope="col">${v.t('reply_received')}</th>
          <th scope="col">${v.t('reply_from')}</th>
          <th scope="col">${v.t('reply_to')}</th>
          <th scope="col">${v.t('reply_text')}</th>
          <th scope="col">${v.t('reply_answers')}</th>
        </tr>
      </thead>
      <tbody>
        ${replies.map(
          (r) =>
            html`<tr data-reply="${r.id}">
              <td>${shownTime(v, Number(r.received_at))}</td>
              <td>+${r.number}</td>
              <td>${r.destination ?? ''}</td>
              <td>${r.text}</td>
              <td>${answers(v, r)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** The account's replies: to its messages and through its MO routes, newest first, a page at a time. */
export function repliesPage(_scope: FastifyInstance, shared: Shared): Section {
  return {
    path: '/panel/replies',
    title: 'replies',
    who: 'account',
    async render(v) {
      const before = cursor(v.query.before);
      const { replies, more } = await accountReplies(shared.ctx, accountOf(v).id, before);
      const last = replies.at(-1);
      return html`<section class="card" aria-labelledby="replies-title">
        <h2 id="replies-title">${v.t('replies')}</h2>
        <p class="help">${v.t('replies_help')}</p>
        ${replies.length === 0 ? html`<p>${v.t('replies_none')}</p>` : replyTable(v, replies)}
        <p>
          ${before !== undefined ? html`<a href="/panel/replies">← ${v.t('replies_newest')}</a>` : ''}
          ${more && last ? html`<a href="/panel/replies?before=${last.id}" rel="next">${v.t('replies_older')} →</a>` : ''}
        </p>
      </section>`;
    },
  };
}
