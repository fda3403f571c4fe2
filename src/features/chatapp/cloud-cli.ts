import type { Command } from 'commander';
import type { BaseContext } from '../../context.js';
import { CliError } from '../../cli/runner.js';
import { providerSettings, sealProviderSecrets } from '../../carriers/providers/cli-options.js';
import { instanceWebhookPath } from '../../carriers/whatsapp-cloud/instances.js';
import type { Binding, ChatappInstance } from './instances.js';

// Binding an instance to its own Cloud API number (carriers/whatsapp-cloud/instances.ts), from the CLI.

/** `--cloud-…` options of `chatapp-instances add` and `bind`. */
export function cloudOptions(cmd: Command): Command {
  return cmd
    .option('--cloud-phone-number-id <id>', 'bind to this WhatsApp Cloud API phone-number id')
    .option(
      '--cloud-secrets <source>',
      '"-": access_token, app_secret and verify_token as key=value lines on standard input',
    )
    .option('--cloud-graph-url <url>', 'Graph API base address (default https://graph.facebook.com)')
    .option('--cloud-graph-version <v>', 'Graph API version (default v21.0)')
    .option('--cloud-otp-template <name>', 'approved authentication template that carries OTP codes')
    .option('--cloud-otp-language <code>', 'its language (default es_MX)')
    .option('--cloud-messages-per-second <n>', 'pace of this number in each process (default 80)', (v) => {
      if (!/^\d+$/.test(v)) throw new CliError(`not an integer: ${v}`);
      return Number(v);
    });
}

export const wantsBinding = (o: Record<string, unknown>) =>
  Object.keys(o).some((k) => k.startsWith('cloud') && o[k] !== undefined);

/**
 * The binding the options describe, over the instance's current one:
 * settings validated like a whatsapp-cloud connector's, secrets read from
 * standard input and sealed (required for a first binding, kept otherwise).
 */
export function bindingFromOptions(
  ctx: BaseContext,
  o: Record<string, unknown>,
  current?: ChatappInstance,
  input?: () => string,
): Binding {
  const base = current?.cloud_settings ? JSON.parse(current.cloud_settings) : {};
  const options = {
    phoneNumberId: o.cloudPhoneNumberId,
    graphUrl: o.cloudGraphUrl,
    graphVersion: o.cloudGraphVersion,
    otpTemplate: o.cloudOtpTemplate,
    otpLanguage: o.cloudOtpLanguage,
    messagesPerSecond: o.cloudMessagesPerSecond,
  };
  if (options.phoneNumberId === undefined && base.phone_number_id === undefined)
    throw new CliError('--cloud-phone-number-id is required to bind an instance');
  const settings = providerSettings('whatsapp-cloud', options, base);
  let sealed = current?.cloud_secrets_enc ?? null;
  if (o.cloudSecrets !== undefined || !sealed) {
    if (o.cloudSecrets !== '-')
      throw new CliError(
        '--cloud-secrets - is required: access_token, app_secret and verify_token are read from standard input as key=value lines',
      );
    sealed = sealProviderSecrets(ctx, 'whatsapp-cloud', o.cloudSecrets, input);
  }
  return { cloud_settings: JSON.stringify(settings), cloud_secrets_enc: sealed };
}

/** What the CLI shows of an instance: never a secret. */
export function publicInstance(i: ChatappInstance): Record<string, unknown> {
  if (!i.cloud_settings) return { instance_id: i.instance_id, status: i.status };
  const s = JSON.parse(i.cloud_settings);
  return {
    instance_id: i.instance_id,
    status: i.status,
    cloud_phone_number_id: s.phone_number_id,
    cloud_graph_url: s.graph_url,
    cloud_graph_version: s.graph_version,
    cloud_otp_template: s.otp_template,
    cloud_otp_language: s.otp_language,
    cloud_webhook_path: instanceWebhookPath(i.instance_id),
  };
}
