import type { FastifyInstance } from 'fastify';
import { campaignMessages, campaignOf, recentCampaigns } from '../../../features/campaigns/service.js';
import { campaignDetailsOf, campaignStatusCountsOf, statusWord } from '../../../features/reports/service.js';
import { shownTime } from '../../time.js';
import type { MessageStatus } from '../../../messaging/tables.js';
import { html } from '../../html.js';
import { groupOf, STATUS_GROUPS, type StatusGroup } from '../../stats.js';
import {
  accountOf,
  formatNumber,
  makeView,
  refuse,
  sendPage,
  type Section,
  type Shared,
  type View,
} from '../../view.js';
import { statusChart } from '../../charts.js';
import { campaignTable } from '../../campaign-table.js';
import { period } from './period.js';
import { registerCampaignActions } from './actions.js';
import { coversFrom } from '../../covers-from.js';

const PAGE = 50;

/** Campaigns: the list (listCampaigns, as POST /campaigns), a campaign's page, and the period's CSV export. */
export function campaignsPage(scope: FastifyInstance, shared: Shared): Section {
  const { ctx } = shared;
  const section: Section = {
    path: '/panel/campaigns',
    title: 'campaigns',
    who: 'account',
    async render(v) {
      const account = accountOf(v);
      const { from, to } = period(v, false);
      const campaigns = await recentCampaigns(ctx, {
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
        ${coversFrom(v)} ${campaignTable(v, campaigns, 'campaigns')}
      </section>`;
    },
  };
  registerCampaignDetail(scope, shared, section);
  registerCampaignActions(scope, shared, section);
  return section;
}

/** A campaign's page: its figures, the status chart, and its messages a page at a time. */
function registerCampaignDetail(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  scope.get('/campaigns/:id', { schema: { hide: true }, config: { panel: 'account' } }, async (request, reply) => {
    const v = makeView(ctx, shared.assets(), request);
    const id = Number((request.params as { id: string }).id);
    const account = accountOf(v);
    // Another account's campaign is as absent as one that does not exist.
    const campaign = Number.isSafeInteger(id) ? await campaignOf(ctx, account.id, id) : undefined;
    if (!campaign) throw refuse(404, 'not_found');
    const after = Number(v.query.after ?? 0) || 0;
    const [counts, details, messages] = await Promise.all([
      campaignStatusCountsOf(ctx, account.id, id),
      campaignDetailsOf(ctx, account.id, id),
      campaignMessages(ctx, account.id, id, after, PAGE + 1),
    ]);
    const series = Object.fromEntries(STATUS_GROUPS.map((g) => [g, [0]])) as Record<StatusGroup, number[]>;
    for (const c of counts) series[groupOf(c.status)][0] += c.count;
    const shown = { campaign, details, series, messages };
    return sendPage(reply, v, { ...section, charts: true, render: async () => campaignBody(v, id, shown) });
  });
}

type Campaign = NonNullable<Awaited<ReturnType<typeof campaignOf>>>;
type Shown = {
  campaign: Campaign;
  details: Awaited<ReturnType<typeof campaignDetailsOf>>;
  series: Record<StatusGroup, number[]>;
  messages: Awaited<ReturnType<typeof campaignMessages>>;
};

function campaignBody(v: View, id: number, { campaign, details, series, messages }: Shown) {
  const labels = Object.fromEntries(STATUS_GROUPS.map((g) => [g, v.t(g)]));
  const page = messages.slice(0, PAGE);
  return html`<p><a href="/panel/campaigns">← ${v.t('campaigns')}</a></p>
    <section class="card" aria-labelledby="campaign-title">
      <h2 id="campaign-title">${campaign.name}</h2>
      <p>
        ${v.t('created')}: ${shownTime(v, Number(campaign.created_at))} · ${v.t('channel')}: ${campaign.channel} ·
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
                  <td>${m.sent_at === null ? '' : shownTime(v, Number(m.sent_at))}</td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
      ${messages.length > PAGE ? html`<p><a href="/panel/campaigns/${id}?after=${page[page.length - 1].id}" rel="next">${v.t('next_page')}</a></p>` : ''}
    </section>`;
}
