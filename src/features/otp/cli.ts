import type { Command } from 'commander';
import { PARENT_OPTION, requireAccount, table } from '../../cli/helpers.js';
import { shownEmail } from '../../accounts/subaccount-email.js';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { listBlocks, removeBlock } from './service.js';
import {
  findSettings,
  OtpSettingsError,
  saveSettings,
  settingsChanges,
  type OtpSettings,
  type SettingsChanges,
} from './settings.js';

const shown = (email: string, s: OtpSettings | undefined) => ({
  email,
  allowed_countries: s?.allowed_countries ? s.allowed_countries.split(',') : 'any',
  max_per_number_hour: s?.max_per_number_hour ?? null,
});

/** The changes the options ask for; a refused form is an operator mistake. */
function changesFrom(o: { countries?: string; maxPerNumberHour?: string }): SettingsChanges {
  try {
    return settingsChanges(o.countries, o.maxPerNumberHour);
  } catch (err) {
    if (err instanceof OtpSettingsError) throw new CliError(err.message);
    throw err;
  }
}

/** `mensajero otp settings`: the per-account abuse protection (off by default). */
export function otpCommands(program: Command, run: CliRunner): void {
  const otp = program.command('otp').description('OTP verification settings');
  otp
    .command('settings')
    .description("show or change an account's OTP abuse protection")
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--countries <codes>', 'comma-separated country codes codes may be sent to, or any')
    .option('--max-per-number-hour <n>', 'new codes per phone number per hour, or none')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        const account = await requireAccount(ctx, o.email, o.parent);
        const changes = changesFrom(o);
        if (Object.keys(changes).length > 0) await saveSettings(ctx.db.kysely, account.id, changes, Date.now());
        return shown(shownEmail(account.email), await findSettings(ctx.db.kysely, account.id));
      }),
    );
  blockCommands(otp, run);
}

/** `otp blocks list|remove`: the prefixes the pumping guard blocked (docs/operators/abuse-controls.md). */
function blockCommands(otp: Command, run: CliRunner): void {
  const blocks = otp.command('blocks').description('prefixes the OTP pumping guard blocked');
  blocks
    .command('list')
    .description('the blocks in force')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => ({ blocks: await listBlocks(ctx.db.kysely) }),
        (r) => table(r.blocks, ['id', 'scope', 'email', 'prefix', 'until', 'created', 'verified']),
      ),
    );
  blocks
    .command('remove')
    .description('end a block at once (the family counts the prefix again from nothing)')
    .requiredOption('--id <n>', 'the block, as otp blocks list shows it')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        async (ctx) => {
          const id = Number(o.id);
          if (!/^\d{1,15}$/.test(String(o.id)) || !Number.isSafeInteger(id)) throw new CliError('--id is a block id');
          if (!(await removeBlock(ctx.db, id))) throw new CliError(`no block in force with id ${o.id}`);
          return { removed: true };
        },
        () => 'removed',
      ),
    );
}
