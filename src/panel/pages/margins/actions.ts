import type { FastifyInstance } from 'fastify';
import { marginFields } from '../../../features/reports/margins.js';
import { sendCsv } from '../../csv.js';
import { makeView, type Section, type Shared } from '../../view.js';
import { filtersOf, report } from './report.js';

/** The Margins page's export (a GET that answers a file, not a page). */
export function registerMarginActions(scope: FastifyInstance, shared: Shared, _section: Section): void {
  scope.get(
    '/operator/margins/export',
    { schema: { hide: true }, config: { panel: 'operator' } },
    async (request, reply) => {
      const v = makeView(shared.ctx, shared.assets(), request);
      const f = filtersOf(v.query);
      const { rows } = await report(v, f);
      const numbered = rows.map((r, i) => ({ ...r, id: i + 1 }));
      const fields = marginFields(f.by);
      // Rows of the report, in its order; the columns and values are those of `reports margins --csv`.
      return sendCsv(
        reply,
        `margins-${f.by}-${f.from}-${f.to}.csv`,
        fields,
        async (after) => numbered.slice(after, after + 1000),
        (r) => fields.map((field) => String((r as Record<string, unknown>)[field] ?? '')),
        { numeric: new Set([1, 2, 3, 4, 5, 6, 7]) },
      );
    },
  );
}
