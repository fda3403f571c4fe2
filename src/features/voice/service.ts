import type { AppContext } from '../../context.js';
import { z } from 'zod';
import { toCredits } from '../../accounts/credits.js';
import { badRequest } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { bool, flag, optionalText, text } from '../../http/fields.js';
import { send, type SendContext } from '../../messaging/send.js';
import { cleanCountryCode, cleanNumber, splitWritten } from '../../phone/numbers.js';
import { channelNumbers, type ChannelNumbers } from '../../phone/accepted.js';
import { familyRules } from '../../messaging/accept-rules.js';
import { narrowedNumbers } from '../../messaging/send-rules.js';
import { parseSendDate } from '../../messaging/schedule.js';
import { renderScript, SCRIPTS, speakable, TEMPLATES, type Template } from './scripts.js';

defineMessages({
  voice_01: 'template is required',
  voice_02: 'template must be a letter from a to k',
  voice_03: 'code is required with template a',
  voice_04: 'code must be 4 to 11 letters or digits',
  voice_05: 'code is not accepted with template k',
  voice_06: 'company is longer than 60 characters',
  voice_07: 'voice_message is required with template k',
  voice_08: 'voice_message is longer than 160 characters',
  voice_09: 'voice_message is only accepted with template k',
  voice_10: 'sandbox must be 0 or 1',
  voice_11: 'showCampaignId must be true or false',
});

export const MAX_RECIPIENTS = 500;

export const VoiceSend = z.object({
  numbers: text('sms_03', 'sms_04').pipe(z.string().refine((s) => s.trim() !== '', { error: 'sms_03' })),
  country_code: text('sms_05', 'sms_18').pipe(z.string().trim().min(1, { error: 'sms_05' })),
  template: text('voice_01', 'voice_02')
    .transform((s) => s.trim().toLowerCase())
    .pipe(
      z
        .string()
        .min(1, { error: 'voice_01' })
        .pipe(z.enum(TEMPLATES, { error: 'voice_02' })),
    ),
  sandbox: flag('voice_10'),
  company: optionalText('voice_06').transform((s) => (s === undefined ? undefined : speakable(s))),
  code: optionalText('voice_04').pipe(
    z
      .string()
      .regex(/^[A-Za-z0-9]{4,11}$/, { error: 'voice_04' })
      .optional(),
  ),
  voice_message: optionalText('voice_08').transform((s) => (s === undefined ? undefined : speakable(s))),
  name: optionalText('sms_06').pipe(z.string().max(100, { error: 'sms_06' }).optional()),
  date: optionalText('sms_21'),
  showCampaignId: bool('voice_11').optional(),
});
export type VoiceSendInput = z.output<typeof VoiceSend>;

export type VoiceSent = {
  total_messages: number;
  references: Array<{ reference: string; number: string }>;
  credit: number;
  campaignId?: number;
};

/**
 * Comma-separated 10-digit numbers → full numbers with 52: sms_04 malformed,
 * sms_15 over 500, sms_16 repeated, sms_24 not a line voice calls (premium,
 * toll-free and other non-geographic ranges).
 */
export function parseNumbers(raw: string, rule: ChannelNumbers): string[] {
  // As clients write them: '55 1234-5678', or '+52 55 1234 5678' with the (only) country code.
  const numbers = raw.split(',').map((n) => {
    const { digits, international } = splitWritten(cleanNumber(n));
    if (!international) return digits;
    if (!digits.startsWith('52')) throw badRequest('sms_18');
    return digits.slice(2);
  });
  if (numbers.length > MAX_RECIPIENTS) throw badRequest('sms_15');
  const seen = new Set<string>();
  // Voice serves 52 only: its numbers have 10 digits (the rule's length, asked first as it always was).
  for (const n of numbers) {
    if (!/^\d+$/.test(n) || rule.refusal('52', n) === 'length') throw badRequest('sms_04');
    if (seen.has(n)) throw badRequest('sms_16');
    seen.add(n);
  }
  for (const n of numbers) if (rule.refusal('52', n)) throw badRequest('sms_24', undefined, { number: n });
  return numbers.map((n) => `52${n}`);
}

/** The rules between template, code, company and voice_message; returns the script text. */
function script(input: VoiceSendInput): string {
  const template: Template = input.template;
  const company = input.company || undefined;
  if (company && [...company].length > 60) throw badRequest('voice_06');
  if (template === 'k') {
    if (input.code !== undefined) throw badRequest('voice_05');
    if (!input.voice_message) throw badRequest('voice_07');
    if ([...input.voice_message].length > 160) throw badRequest('voice_08');
    return renderScript({ template, company, voiceMessage: input.voice_message });
  }
  if (input.voice_message !== undefined) throw badRequest('voice_09');
  if (SCRIPTS[template].codeRequired && input.code === undefined) throw badRequest('voice_03');
  return renderScript({ template, company, code: input.code });
}

/** One call per number; validation, debit, messages and dispatch commit in one transaction. */
export async function sendVoice(
  ctx: SendContext & Pick<AppContext, 'sendRules'>,
  accountId: number,
  input: VoiceSendInput,
): Promise<VoiceSent> {
  const rule = narrowedNumbers(channelNumbers(ctx.config, 'voice'), (await familyRules(ctx, accountId)).countries);
  const numbers = parseNumbers(input.numbers, rule);
  if (!rule.countryCodes.has(cleanCountryCode(input.country_code))) throw badRequest('sms_18');
  const text = script(input);
  const scheduledAt = parseSendDate(input.date);
  const sandbox = input.sandbox === 1;
  const [result] = await send(
    ctx,
    [
      {
        accountId,
        channel: 'voice',
        source: 'voice',
        recipients: numbers.map((number) => ({ countryCode: '52', number })),
        text,
        campaignName: input.name,
        sandbox,
        scheduledAt,
        meta: {
          template: input.template,
          ...(input.company ? { company: input.company } : {}),
          ...(input.code ? { code: input.code } : {}),
        },
      },
    ],
    'queued',
  );
  return {
    total_messages: result.references.length,
    references: result.references,
    credit: toCredits(result.creditUnits),
    ...(input.showCampaignId ? { campaignId: result.campaignId } : {}),
  };
}
