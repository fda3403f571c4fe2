import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { BaseContext } from '../../context.js';
import { CliError } from '../../cli/runner.js';
import { encrypt } from '../../lib/secrets.js';
import { KINDS, type KindType } from '../kinds.js';

const int = (v: string) => {
  if (!/^\d+$/.test(v)) throw new CliError(`not an integer: ${v}`);
  return Number(v);
};

/** Options of provider connectors on `carriers add` / `carriers set`. */
export function providerOptions(cmd: Command): Command {
  return cmd
    .option('--phone-number-id <id>', 'whatsapp-cloud: the Cloud API phone-number id')
    .option('--graph-url <url>', 'whatsapp-cloud: Graph API base address (default https://graph.facebook.com)')
    .option('--graph-version <v>', 'whatsapp-cloud: Graph API version (default v21.0)')
    .option('--otp-template <name>', 'whatsapp-cloud: approved authentication template for OTP codes')
    .option('--otp-language <code>', 'whatsapp-cloud: its language (default es_MX)')
    .option('--account-sid <id>', 'twiml-voice: the account id (AccountSid)')
    .option('--caller <e164>', 'twiml-voice: the caller number, e.g. +525512345678')
    .option('--api-url <url>', 'twiml-voice: Calls API base address (default https://api.twilio.com)')
    .option('--voice <name>', 'twiml-voice: the <Say> voice (default Polly.Mia)')
    .option('--language <code>', 'twiml-voice: the <Say> language (default es-MX)')
    .option('--messages-per-second <n>', 'provider connectors: pace of this process (default 80)', int)
    .option(
      '--secrets <source>',
      'provider connectors: "-" reads key=value lines from standard input (whatsapp-cloud: access_token, app_secret, verify_token; twiml-voice: auth_token)',
    );
}

const SETTINGS_KEYS: Array<[string, string]> = [
  ['phoneNumberId', 'phone_number_id'],
  ['graphUrl', 'graph_url'],
  ['graphVersion', 'graph_version'],
  ['otpTemplate', 'otp_template'],
  ['otpLanguage', 'otp_language'],
  ['accountSid', 'account_sid'],
  ['caller', 'caller'],
  ['apiUrl', 'api_url'],
  ['voice', 'voice'],
  ['language', 'language'],
  ['messagesPerSecond', 'messages_per_second'],
];

const problem = (what: string, issues: Array<{ path: PropertyKey[]; message: string }>) =>
  new CliError(`${what}: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);

/** Settings of a provider connector from CLI options over its stored ones. */
export function providerSettings(
  type: string,
  o: Record<string, unknown>,
  base: Record<string, unknown> = {},
): Record<string, unknown> {
  const merged = { ...base };
  for (const [opt, key] of SETTINGS_KEYS) if (o[opt] !== undefined) merged[key] = o[opt];
  const r = KINDS[type as KindType].settings.safeParse(merged);
  if (!r.success) throw problem('settings', r.error.issues);
  return r.data;
}

/**
 * Secrets as key=value lines on standard input (never options: they would
 * show in the process list), validated and sealed with the server key.
 * Only the key names ever reach an error message.
 */
export function sealProviderSecrets(
  ctx: BaseContext,
  type: string,
  source: unknown,
  input: () => string = () => readFileSync(0, 'utf8'),
): string {
  if (source !== '-')
    throw new CliError('--secrets - is required: the secrets are read from standard input as key=value lines');
  const secrets: Record<string, string> = {};
  for (const line of input().split(/\r?\n/)) {
    const m = /^\s*([a-z_]+)\s*=(.*)$/.exec(line);
    if (m) secrets[m[1]] = m[2].trim();
  }
  const r = KINDS[type as KindType].secrets.safeParse(secrets);
  if (!r.success)
    throw new CliError(
      `secrets on standard input: ${r.error.issues.map((i) => `${i.path.join('.')} is required`).join('; ')}`,
    );
  return encrypt(ctx.secrets.keyEncryption, JSON.stringify(r.data));
}
