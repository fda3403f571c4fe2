import type { Command } from 'commander';
import { PARENT_OPTION, requireAccount } from '../../cli/helpers.js';
import { shownEmail } from '../../accounts/subaccount-email.js';
import { CliError, type CliRunner } from '../../cli/runner.js';
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
}
