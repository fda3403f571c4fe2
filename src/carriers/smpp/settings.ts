import { z } from 'zod';

/**
 * A SMPP connector's settings as stored (carriers.settings, JSON) and shown
 * by the CLI. The password is stored apart, encrypted, and never shown.
 */
export const SmppSettingsSchema = z.object({
  host: z.string().min(1),
  port: z.number().int().min(1).max(65535),
  system_id: z.string().min(1).max(15),
  system_type: z.string().max(12).default(''),
  bind: z.enum(['transceiver', 'transmitter-receiver']).default('transceiver'),
  tls: z.boolean().default(false),
  /** PEM file of the CA that signed the SMSC's certificate, when it is not a public one. */
  tls_ca: z.string().min(1).nullable().default(null),
  /** Outstanding submit_sm per bind. */
  window: z.number().int().min(1).max(1000).default(10),
  /** Messages per second across every process; 0: no cap. */
  throughput: z.number().int().min(0).max(100_000).default(0),
  /** Binds across every process. */
  binds: z.number().int().min(1).max(64).default(1),
  /** null: by the sender (address.ts): TON 5 / NPI 0 alphanumeric, 3 / 0 a short code, 1 / 1 a longer number. */
  source_ton: z.number().int().min(0).max(6).nullable().default(null),
  source_npi: z.number().int().min(0).max(18).nullable().default(null),
  dest_ton: z.number().int().min(0).max(6).default(1),
  dest_npi: z.number().int().min(0).max(18).default(1),
  default_sender: z.string().max(20).nullable().default(null),
  enquire_link_seconds: z.number().int().min(1).max(3600).default(30),
  /** Preferred coding: GSM text goes as data_coding 0 unless this says Latin-1 or UCS-2; what GSM cannot hold goes as UCS-2. */
  coding: z.enum(['gsm', 'latin1', 'ucs2']).default('gsm'),
  /** GSM as packed septets instead of one septet per octet (what the SMSC expects). */
  packed: z.boolean().default(false),
  /** Seconds to wait for a submit_sm_resp before the message counts as not taken. */
  response_timeout_seconds: z.number().int().min(1).max(300).default(30),
});

export type SmppSettings = z.infer<typeof SmppSettingsSchema>;

/** Turns a zod failure into one operator-readable line. */
export function parseSmppSettings(input: unknown): SmppSettings {
  const r = SmppSettingsSchema.safeParse(input);
  if (r.success) return r.data;
  throw new Error(r.error.issues.map((i) => `${i.path.join('.') || 'settings'}: ${i.message}`).join('; '));
}
