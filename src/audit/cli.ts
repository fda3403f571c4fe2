import type { Command } from 'commander';
import { pageOf, table } from '../cli/helpers.js';
import { CliError, type CliRunner } from '../cli/runner.js';
import { AUDIT_LIST_MAX, AUDIT_MAX_PAGE, auditPage, sinceOf } from './service.js';

/** `audit list`: the changes made through the operator API, the CLI and the panel's operator view, newest first. */
export function auditCommands(program: Command, run: CliRunner): void {
  const audit = program.command('audit').description('who changed what: operator API, CLI, panel operator view');
  audit
    .command('list')
    .option('--since <when>', 'a duration back (30m, 24h, 7d) or an ISO 8601 moment', '24h')
    .option('--actor <name>', 'cli, token:NAME (or NAME), panel:EMAIL (or EMAIL)')
    .option('--page <n>', `the page, from 1 (the newest ${AUDIT_LIST_MAX} entries)`, '1')
    .option('--json', 'print one JSON object')
    .description(`newest first, ${AUDIT_LIST_MAX} entries a page`)
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const since = sinceOf(String(o.since));
          if (since === undefined) throw new CliError('--since is 30m, 24h, 7d (up to 6 digits) or an ISO 8601 moment');
          const page = pageOf(o.page, AUDIT_MAX_PAGE);
          return auditPage(ctx.db.kysely, { since, actor: o.actor, page });
        },
        (r) =>
          (r.entries.length === 0
            ? 'no entries'
            : table(r.entries, ['at', 'actor', 'action', 'target', 'detail', 'address'])) +
          (r.has_more ? `\n(more: --page ${r.page + 1})` : ''),
      ),
    );
}
