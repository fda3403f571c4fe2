import type { Command } from 'commander';
import { PARENT_OPTION, requireAccount } from '../../cli/helpers.js';
import { shownEmail } from '../../accounts/subaccount-email.js';
import { CliError, type CliRunner } from '../../cli/run.js';
import { findSettings, saveSettings, type OtpSettings } from './store.js';

const shown = (email: string, s: OtpSettings | undefined) => ({
  email,
  allowed_countries: s?.allowed_countries ? s.allowed_countries.split(',') : 'any',
  max_per_number_hour: s?.max_per_number_hour ?? null,
});

/**
 * The settings to change from their text forms (the CLI's options and the
 * panel's form): countries `52,1` or `any`, a per-number hourly cap or `none`.
 * Undefined leaves a setting as it is. Throws CliError with the rule.
 */
export function settingsChanges(countries: unknown, maxPerNumberHour: unknown): { allowed_countries?: string | null; max_per_number_hour?: number | null } {
  const changes: { allowed_countries?: string | null; max_per_number_hour?: number | null } = {};
  if (countries !== undefined) {
    const value = String(countries).trim();
    if (value === 'any' || value === '') changes.allowed_countries = null;
    else {
      const codes = value.split(',').map((c) => c.trim().replace(/^\+/, ''));
      if (!codes.every((c) => /^[1-9]\d{0,2}$/.test(c))) throw new CliError('--countries is a comma-separated list of country codes (e.g. 52,1) or any');
      changes.allowed_countries = [...new Set(codes)].join(',');
    }
  }
  if (maxPerNumberHour !== undefined) {
    const value = String(maxPerNumberHour).trim();
    if (value === 'none') changes.max_per_number_hour = null;
    else if (/^\d+$/.test(value) && Number(value) >= 1 && Number(value) <= 1_000_000) changes.max_per_number_hour = Number(value);
    else throw new CliError('--max-per-number-hour is a positive integer or none');
  }
  return changes;
}

/** `mensajero otp settings`: the per-account abuse protection (off by default). */
export function otpCommands(program: Command, run: CliRunner): void {
  const otp = program.command('otp').description('OTP verification settings');
  otp
    .command('settings')
    .description('show or change an account\'s OTP abuse protection')
    .requiredOption('--email <email>')
    .option(...PARENT_OPTION)
    .option('--countries <codes>', 'comma-separated country codes codes may be sent to, or any')
    .option('--max-per-number-hour <n>', 'new codes per phone number per hour, or none')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        const account = await requireAccount(ctx, o.email, o.parent);
        const changes = settingsChanges(o.countries, o.maxPerNumberHour);
        if (Object.keys(changes).length > 0) await saveSettings(ctx.db.kysely, account.id, changes, Date.now());
        return shown(shownEmail(account.email), await findSettings(ctx.db.kysely, account.id));
      }),
    );
}
