import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { CliError, type CliRunner } from '../../cli/runner.js';
import { loadStripeSettings, removeStripeSettings, saveStripeSettings, STRIPE_API_BASE } from './settings.js';

/**
 * Both secrets come from standard input, one per line (secret key, then
 * webhook signing secret), so they never appear in the process list or shell history.
 */
function readSecrets(): { secretKey: string; webhookSecret: string } {
  const [secretKey = '', webhookSecret = ''] = readFileSync(0, 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim());
  if (!/^(sk|rk)_\S{8,}$/.test(secretKey))
    throw new CliError('the first line of standard input must be the Stripe secret key (sk_… or rk_…)');
  if (!/^whsec_\S{8,}$/.test(webhookSecret))
    throw new CliError('the second line of standard input must be the webhook signing secret (whsec_…)');
  return { secretKey, webhookSecret };
}

export function paymentProviderCommands(program: Command, run: CliRunner): void {
  const cmd = program
    .command('payment-provider')
    .description('the provider behind payment links (default: the simulator)');

  cmd
    .command('set-stripe')
    .description(
      'payment links through Stripe Checkout; reads the secret key and the webhook signing secret from standard input, one per line',
    )
    .option('--api-base <url>', 'Stripe API address', STRIPE_API_BASE)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        if (!/^https?:\/\/[^\s/]+(:\d+)?$/.test(o.apiBase))
          throw new CliError('--api-base is an http(s) address without a path');
        await saveStripeSettings(ctx, { apiBase: o.apiBase, ...readSecrets() });
        return {
          provider: 'stripe',
          api_base: o.apiBase,
          webhook_path: '/payments/stripe/webhook',
          note: 'running serve processes pick this up when restarted',
        };
      }),
    );

  cmd
    .command('show')
    .description('the configured provider (secrets shown only as "set")')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(o, async (ctx) => {
        const s = await loadStripeSettings(ctx);
        return s
          ? { provider: 'stripe', api_base: s.apiBase, secret_key: 'set', webhook_secret: 'set' }
          : { provider: 'simulator' };
      }),
    );

  cmd
    .command('use-simulator')
    .description('forget the Stripe settings: payment links go back to the simulator')
    .option('--json', 'print one JSON object')
    .action((o) => run(o, async (ctx) => ({ provider: 'simulator', removed: await removeStripeSettings(ctx) })));
}
