import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { reportPagesOf, toReportRow } from '../../../features/reports/service.js';
import { LocalTimeFormatter } from '../../../features/reports/local-time.js';
import { csvCell } from '../../../text/csv-cell.js';
import { accountOf, makeView, type Section, type Shared } from '../../view.js';
import { period } from './period.js';

/** The Campaigns page's export (a GET that answers a file, not a page). */
export function registerCampaignActions(scope: FastifyInstance, shared: Shared, _section: Section): void {
  const { ctx } = shared;
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
      for await (const rows of reportPagesOf(ctx, q, ctx.config.REPORTS_PAGE_ROWS)) {
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
}
