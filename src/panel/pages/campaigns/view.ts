import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { listCampaigns } from '../../../features/campaigns/service.js';
import {
  campaignDetails,
  campaignStatusCounts,
  localDay,
  reportPages,
  statusWord,
  toReportRow,
} from '../../../features/reports/service.js';
import { LocalTimeFormatter } from '../../../features/reports/local-time.js';
import { formatLocal } from '../../../lib/time.js';
import type { MessageStatus } from '../../../messaging/tables.js';
import { csvCell } from '../../csv.js';
import { html } from '../../html.js';
import { groupOf, STATUS_GROUPS, type StatusGroup } from '../../stats.js';
import { accountOf, formatNumber, makeView, refuse, sendPage, type Section, type Shared, type View } from '../../view.js';
import { campaignTable, statusChart } from '../overview/view.js';

const PAGE = 50;
/** A period's export covers at most a year: beyond it, export several. */
const MAX_PERIOD_DAYS = 366;

/** The period of the list and the export: YYYY-MM-DD days in Mexico City, both included. */
function period(v: View, required: boolean): { from: number | null; to: number | null } {
  const from = v.query.from ? localDay(v.query.from) : null;
  const to = v.query.to ? localDay(v.query.to) : null;
  if ((v.query.from && !from) || (v.query.to && !to) || (required && (!from || !to))) throw refuse(400, 'date_invalid');
  if (from && to && (to.end <= from.start || to.end - from.start > MAX_PERIOD_DAYS * 86_400_000))
    throw refuse(400, 'period_invalid');
  return { from: from?.start ?? null, to: to?.end ?? null };
}

/** Campaigns: the list (listCampaigns, as POST /campaigns), a campaign's page, and the period's CSV export. */
export function campaignsPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const db = ctx.db.kysely;
  const section: Section = {
    path: '/panel/campaigns',
    title: 'campaigns',
    who: 'account',
    async render(v) {
      const account = accountOf(v);
      const { from, to } = period(v, false);
      const campaigns = await listCampaigns(db, {
        accountId: account.id,
        sandbox: v.query.sandbox === '1' ? 1 : 0,
        from,
        to,
        limit: 100,
      });
      return html`<section class="card">
        <form method="get" action="/panel/campaigns" class="row">
          <label for="from">${v.t('from')}</label
          ><input id="from" name="from" type="date" value="${v.query.from ?? ''}" /> <label for="to">${v.t('to')}</label
          ><input id="to" name="to" type="date" value="${v.query.to ?? ''}" />
          <label
            ><input type="checkbox" name="sandbox" value="1" ${v.query.sandbox === '1' ? html` checked` : ''} />
            ${v.t('sandbox')}</label
          >
          <button type="submit">${v.t('filter')}</button>
          <button type="submit" formaction="/panel/campaigns/export" data-testid="export-csv">
            ${v.t('export_csv')}
          </button>
        </form>
        <p class="help">${v.t('export_help')}</p>
        ${campaignTable(v, campaigns, 'campaigns')}
      </section>`;
    },
  };

  scope.get('/campaigns/:id', { schema: { hide: true }, config: { panel: 'account' } }, async (request, reply) => {
    const v = makeView(ctx, shared.assets(), request);
    const id = Number((request.params as { id: string }).id);
    const account = accountOf(v);
    // Another account's campaign is as absent as one that does not exist.
    const campaign = Number.isSafeInteger(id)
      ? await db
          .selectFrom('campaigns')
          .selectAll()
          .where('id', '=', id)
          .where('account_id', '=', account.id)
          .executeTakeFirst()
      : undefined;
    if (!campaign) throw refuse(404, 'not_found');
    const after = Number(v.query.after ?? 0) || 0;
    const [counts, details, messages] = await Promise.all([
      campaignStatusCounts(db, account.id, id),
      campaignDetails(db, account.id, id),
      db
        .selectFrom('messages')
        .select(['id', 'number', 'status', 'dlr_code', 'sent_at', 'created_at'])
        .where('campaign_id', '=', id)
        .where('account_id', '=', account.id)
        .where('id', '>', after)
        .orderBy('id')
        .limit(PAGE + 1)
        .execute(),
    ]);
    const series = Object.fromEntries(STATUS_GROUPS.map((g) => [g, [0]])) as Record<StatusGroup, number[]>;
    for (const c of counts) series[groupOf(c.status)][0] += c.count;
    const labels = Object.fromEntries(STATUS_GROUPS.map((g) => [g, v.t(g)]));
    const page = messages.slice(0, PAGE);
    const detail: Section = {
      ...section,
      charts: true,
      async render() {
        return html`<p><a href="/panel/campaigns">← ${v.t('campaigns')}</a></p>
          <section class="card" aria-labelledby="campaign-title">
            <h2 id="campaign-title">${campaign.name}</h2>
            <p>
              ${v.t('created')}: ${formatLocal(Number(campaign.created_at))} · ${v.t('channel')}: ${campaign.channel} ·
              ${v.t('total')}: ${formatNumber(v, details.totals)} · ${v.t('effectiveness')}: ${details.effectiveness} %
            </p>
            ${statusChart(v, 'campaign-title', [campaign.name], series, labels)}
          </section>
          <section class="card" aria-labelledby="messages-title">
            <h2 id="messages-title">${v.t('messages')}</h2>
            <div class="scroll">
              <table class="stack" data-testid="messages">
                <thead>
                  <tr>
                    <th scope="col">${v.t('number')}</th>
                    <th scope="col">${v.t('status')}</th>
                    <th scope="col">${v.t('sent')}</th>
                  </tr>
                </thead>
                <tbody>
                  ${page.map(
                    (m) =>
                      html`<tr>
                        <td>${m.number}</td>
                        <td>${statusWord(m.status as MessageStatus, m.dlr_code)}</td>
                        <td>${m.sent_at === null ? '' : formatLocal(Number(m.sent_at))}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>
            ${messages.length > PAGE ? html`<p><a href="/panel/campaigns/${id}?after=${page[page.length - 1].id}" rel="next">${v.t('next_page')}</a></p>` : ''}
          </section>`;
      },
    };
    return sendPage(reply, v, detail);
  });

  /** The period's report rows as CSV, streamed page by page from the database (the columns of /reports/generate). */
  scope.get('/campaigns/export', { schema: { hide: true }, config: { panel: 'account' } }, async (request, reply) => {
    const v = makeView(ctx, shared.assets(), request);
    const account = accountOf(v);
    const { from, to } = period(v, true);
    const q = { accountId: account.id, sandbox: (v.query.sandbox === '1' ? 1 : 0) as 0 | 1, from: from!, to: to! };
    async function* csv(): AsyncGenerator<string> {
      const columns = [
        'name',
        'created_date',
        'reference',
        'number',
        'message',
        'sent_date',
        'status',
        'status_code',
        'operator',
        'type',
      ] as const;
      yield '\ufeff' + columns.join(',') + '\r\n';
      const time = new LocalTimeFormatter();
      for await (const rows of reportPages(db, q, ctx.config.REPORTS_PAGE_ROWS)) {
        yield (
          rows
            .map((r) => {
              const row = toReportRow(r, time);
              return columns.map((c) => csvCell(row[c])).join(',');
            })
            .join('\r\n') + '\r\n'
        );
      }
    }
    return reply
      .type('text/csv; charset=utf-8')
      .header('content-disposition', `attachment; filename="mensajero-${v.query.from}-${v.query.to}.csv"`)
      .send(Readable.from(csv()));
  });

  return section;
}
