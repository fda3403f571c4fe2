import { z } from 'zod';

/**
 * A TwiML voice connector (Twilio's Calls API, also offered by SignalWire's
 * and Telnyx's compatible endpoints). The auth token is stored apart,
 * encrypted (carriers.password_enc), and never shown.
 */
export const TwimlSettingsSchema = z.object({
  account_sid: z
    .string()
    .regex(/^[A-Za-z0-9-]{1,64}$/, { error: 'the account id (AccountSid) is letters, digits and -' }),
  /** The caller number, E.164. */
  caller: z.string().regex(/^\+\d{6,15}$/, { error: 'the caller number is E.164, e.g. +525512345678' }),
  api_url: z.url({ protocol: /^https?$/ }).default('https://api.twilio.com'),
  voice: z.string().min(1).max(60).default('Polly.Mia'),
  language: z.string().min(2).max(10).default('es-MX'),
  messages_per_second: z.number().int().min(1).max(1000).default(1),
});
export type TwimlSettings = z.infer<typeof TwimlSettingsSchema>;

export const TwimlSecretsSchema = z.object({ auth_token: z.string().min(1) });
export type TwimlSecrets = z.infer<typeof TwimlSecretsSchema>;
