import type { Command } from 'commander';
import { CliError, type CliRunner } from '../cli/runner.js';
import { listEpisodes, RECENT_DAYS } from './index.js';

/** `mensajero alerts list`: open episodes and those of the last days, with their deliveries. */
export function alertCommands(program: Command, run: CliRunner): void {
  const alerts = program
    .command('alerts')
    .description('operator alerts (carrier down, queue delayed, webhook disabled)');
  alerts
    .command('list')
    .description(`open alert episodes and those opened in the last ${RECENT_DAYS} days, newest first`)
    .option('--limit <n>', 'how many episodes', '100')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const limit = Number(o.limit);
          if (!/^\d+$/.test(String(o.limit)) || limit < 1 || limit > 1000)
            throw new CliError('--limit is a whole number from 1 to 1000');
          return { episodes: await listEpisodes(ctx.db.kysely, limit) };
        },
        (r) =>
          r.episodes.length === 0
            ? 'no alerts'
            : r.episodes
                .map(
                  (e) =>
                    `${e.state.padEnd(6)} ${e.type} ${e.subject} since ${e.since}${e.closed_at ? ` closed ${e.closed_at}` : ''}`,
                )
                .join('\n'),
      ),
    );
}
