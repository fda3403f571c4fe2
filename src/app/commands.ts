import type { Command } from 'commander';
import type { CliRunner } from '../cli/runner.js';

type Register = (program: Command, run: CliRunner) => void;

/**
 * The operator commands, by the top-level names each module registers. A
 * command loads its own module only (`mensajero accounts create` does not
 * load carriers, webhooks or the HTTP server); `--help` and unknown names load
 * them all. commands.test.ts checks the names against what each registers.
 */
export const commandModules: Array<{ names: string[]; load: () => Promise<Register> }> = [
  { names: ['accounts'], load: async () => (await import('../features/accounts/cli.js')).accountCommands },
  { names: ['doctor'], load: async () => (await import('../doctor/cli.js')).doctorCommand },
  { names: ['backup'], load: async () => (await import('../backup/cli.js')).backupCommand },
  { names: ['senders', 'landlines'], load: async () => (await import('../features/sms/cli.js')).smsCommands },
  { names: ['chatapp-instances'], load: async () => (await import('../features/chatapp/cli.js')).chatappCli },
  { names: ['otp'], load: async () => (await import('../features/otp/cli.js')).otpCommands },
  { names: ['webhooks', 'events'], load: async () => (await import('../webhooks/cli.js')).webhookCommands },
  {
    names: ['payment-provider'],
    load: async () => (await import('../payment-providers/stripe/cli.js')).paymentProviderCommands,
  },
  { names: ['wallets'], load: async () => (await import('../features/wallet/cli.js')).walletCommands },
  { names: ['loyalty'], load: async () => (await import('../features/loyalty/cli.js')).loyaltyCommands },
  { names: ['carriers', 'routes'], load: async () => (await import('../carriers/cli.js')).carrierCommands },
  { names: ['prices'], load: async () => (await import('../features/prices/cli.js')).priceCommands },
  { names: ['reports'], load: async () => (await import('../features/reports/cli.js')).marginCommands },
  { names: ['messages'], load: async () => (await import('../features/messages/cli.js')).messageCommands },
  { names: ['smpp-users'], load: async () => (await import('../features/smpp-users/cli.js')).smppUserCommands },
  { names: ['operators'], load: async () => (await import('../panel/cli.js')).operatorCommands },
  { names: ['alerts'], load: async () => (await import('../alerts/cli.js')).alertCommands },
  { names: ['dnc'], load: async () => (await import('../features/dnc/cli.js')).dncCommands },
  { names: ['filters'], load: async () => (await import('../features/filters/cli.js')).filterCommands },
  {
    names: ['operator-tokens'],
    load: async () => (await import('../operator-api/cli.js')).operatorTokenCommands,
  },
  { names: ['audit'], load: async () => (await import('../audit/cli.js')).auditCommands },
  { names: ['move-database'], load: async () => (await import('../move-database/cli.js')).moveDatabaseCommand },
  { names: ['mo-routes'], load: async () => (await import('../features/mo-routes/cli.js')).moRouteCommands },
];

/**
 * Registers the modules that define `name`, or every module when no module claims it (help, a typo). A command
 * the program defines itself (`serve`, `migrate` in main.ts) needs none: `serve` loaded them all for nothing.
 */
export async function registerCommands(program: Command, run: CliRunner, name: string | undefined): Promise<void> {
  if (program.commands.some((c) => c.name() === name)) return;
  const claimed = commandModules.filter((m) => name !== undefined && m.names.includes(name));
  for (const m of claimed.length > 0 ? claimed : commandModules) (await m.load())(program, run);
}
