import { z } from 'zod';

/**
 * A WhatsApp Business Cloud API connector's settings (carriers.settings).
 * Its secrets (access token, app secret, webhook verify token) are stored
 * apart, encrypted (carriers.password_enc), and never shown.
 */
export const WhatsappSettingsSchema = z.object({
  phone_number_id: z.string().regex(/^\d{1,30}$/, { error: 'the Cloud API phone-number id is digits' }),
  /** Graph API base address and version (a test server in tests). */
  graph_url: z.url({ protocol: /^https?$/ }).default('https://graph.facebook.com'),
  graph_version: z
    .string()
    .regex(/^v\d+\.\d+$/, { error: 'a Graph API version such as v21.0' })
    .default('v21.0'),
  /** The approved authentication template that carries OTP codes, and its language. */
  otp_template: z.string().min(1).max(512).nullable().default(null),
  otp_language: z.string().min(2).max(15).default('es_MX'),
  messages_per_second: z.number().int().min(1).max(1000).default(80),
});
export type WhatsappSettings = z.infer<typeof WhatsappSettingsSchema>;

export const WhatsappSecretsSchema = z.object({
  access_token: z.string().min(1),
  app_secret: z.string().min(1),
  verify_token: z.string().min(1),
});
export type WhatsappSecrets = z.infer<typeof WhatsappSecretsSchema>;
