import type { AppContext } from '../../context.js';
import { z } from 'zod';
import { toCredits } from '../../accounts/credits.js';
import { badRequest } from '../../http/errors.js';
import { defineMessages } from '../../http/codes.js';
import { flag, optionalText, text } from '../../http/fields.js';
import { writeSend, type SendContext } from '../../messaging/send.js';
import { cleanCountryCode, cleanNumber, splitWritten } from '../../phone/numbers.js';
import { channelNumbers, type ChannelNumbers } from '../../phone/accepted.js';
import { familyRules } from '../../messaging/accept-rules.js';
import { narrowedNumbers } from '../../messaging/send-rules.js';
import { newReadTokens, readLink, ReadConfirmation, recordReadTrackings } from '../../messaging/tracking.js';
import { MESSAGE_TYPES, mediaUrlProblem, type MessageType } from './media.js';
import { parseSendDate } from '../../messaging/schedule.js';
import { findInstance } from './store.js';

defineMessages({
  whatsapp_01: 'instance_id is required',
  whatsapp_02: 'No such chat-app instance on this account',
  whatsapp_03: 'The chat-app instance is not active',
  whatsapp_04: 'number is required',
  whatsapp_05:
    'number must be a Mexican mobile or geographic number: 10 digits without country code (12 starting with 52 when find_country_code is 1)',
  whatsapp_06: 'Only country code 52 (Mexico) is accepted',
  whatsapp_07: 'message is required',
  whatsapp_08: 'message is longer than 1000 characters',
  whatsapp_09: 'type must be text, image, video, audio or document',
  whatsapp_10: 'For media, message must be a public HTTPS URL',
  whatsapp_11: 'The media URL must end in an accepted extension of the type',
  whatsapp_12: 'The media URL must not carry a query string or fragment',
  whatsapp_13: 'caption is longer than 1000 characters',
  whatsapp_14: 'caption is not accepted with type text',
  whatsapp_15: 'name is longer than 100 characters',
  whatsapp_16: 'find_country_code must be 0 or 1',
  whatsapp_17: 'show_id must be 0 or 1',
  whatsapp_18: 'sandbox must be 0 or 1',
  whatsapp_21: 'message sent',
});

/** Characters as a reader counts them (code points): an emoji is one. */
const chars = (s: string) => [...s].length;

export const ChatappSend = z.object({
  instance_id: text('whatsapp_01').pipe(
    z.string().trim().min(1, { error: 'whatsapp_01' }).max(64, { error: 'whatsapp_02' }),
  ),
  number: text('whatsapp_04').pipe(z.string().trim().min(1, { error: 'whatsapp_04' })),
  message: text('whatsapp_07')
    .pipe(z.string().refine((s) => s.trim() !== '', { error: 'whatsapp_07' }))
    .pipe(z.string().refine((s) => chars(s) <= 1000, { error: 'whatsapp_08' })),
  type: optionalText('whatsapp_09')
    .transform((s) => s?.trim().toLowerCase())
    .pipe(z.enum(MESSAGE_TYPES, { error: 'whatsapp_09' }).optional()),
  country_code: optionalText('whatsapp_06'),
  find_country_code: flag('whatsapp_16'),
  date: optionalText('sms_21'),
  name: optionalText('whatsapp_15').pipe(z.string().max(100, { error: 'whatsapp_15' }).optional()),
  caption: optionalText('whatsapp_13').pipe(
    z
      .string()
      .refine((s) => chars(s) <= 1000, { error: 'whatsapp_13' })
      .optional(),
  ),
  read_confirmation: ReadConfirmation,
  sandbox: flag('whatsapp_18'),
  show_id: flag('whatsapp_17'),
});
export type ChatappSendInput = z.output<typeof ChatappSend>;

export type ChatappSent = {
  credit: number;
  reference: string;
  id?: number;
};

/**
 * The recipient's full number (52 + 10 digits) by the rules of number,
 * country_code and find_country_code; whatsapp_05 also for a number that is
 * not a mobile or geographic line (premium, toll-free…).
 */
function recipientNumber(input: ChatappSendInput, rule: ChannelNumbers): string {
  // As clients write it: '55 1234-5678', or '+52 55 1234 5678' with its country code.
  const { digits, international } = splitWritten(cleanNumber(input.number));
  let national: string;
  if (input.find_country_code === 1 || international) {
    if (!/^\d{12}$/.test(digits)) throw badRequest('whatsapp_05');
    if (!rule.countryCodes.has(digits.slice(0, 2))) throw badRequest('whatsapp_06');
    national = digits.slice(2);
  } else {
    if (!rule.countryCodes.has(cleanCountryCode(input.country_code ?? '52'))) throw badRequest('whatsapp_06');
    national = digits;
  }
  // Chat-app serves 52 only; the rule refuses a national number that is not 10 digits ('length') as any other.
  if (!/^\d+$/.test(national) || rule.refusal('52', national)) throw badRequest('whatsapp_05');
  return `52${national}`;
}

/**
 * Sends one chat-app message from the account's instance. Validation, the
 * debit, the message row, its dispatch job and its read-tracking link commit
 * in one transaction.
 */
export async function sendChatapp(
  ctx: SendContext & Pick<AppContext, 'sendRules'>,
  accountId: number,
  input: ChatappSendInput,
): Promise<ChatappSent> {
  const type: MessageType = input.type ?? 'text';
  const { countries } = await familyRules(ctx, accountId);
  const number = recipientNumber(input, narrowedNumbers(channelNumbers(ctx.config, 'chatapp'), countries));
  let message = input.message;
  let caption = input.caption;
  if (type === 'text') {
    if (caption !== undefined) throw badRequest('whatsapp_14');
  } else {
    message = message.trim();
    const problem = mediaUrlProblem(type, message);
    if (problem) throw badRequest(problem);
  }
  const scheduledAt = parseSendDate(input.date);
  const sandbox = input.sandbox === 1;

  // The tracking link goes where the recipient reads: after the text, or in the caption of a media message.
  const rc = input.read_confirmation;
  const [token] = rc ? newReadTokens(1) : [];
  if (rc) {
    const link = readLink(ctx, token);
    if (type === 'text') message = `${message}\n${link}`;
    else caption = caption ? `${caption}\n${link}` : link;
  }

  const sending = await ctx.db.kysely.transaction().execute(async (trx) => {
    const instance = await findInstance(trx, accountId, input.instance_id);
    if (!instance) throw badRequest('whatsapp_02');
    if (instance.status !== 'active') throw badRequest('whatsapp_03');
    const pending = await writeSend(
      trx,
      ctx,
      [
        {
          accountId,
          channel: 'chatapp',
          source: 'chatapp',
          recipients: [{ countryCode: '52', number }],
          text: message,
          sandbox,
          scheduledAt,
          meta: {
            instance_id: instance.instance_id,
            type,
            ...(caption !== undefined ? { caption } : {}),
            ...(input.name ? { contact_name: input.name } : {}),
          },
        },
      ],
      'queued',
    );
    if (rc) await recordReadTrackings(trx, accountId, rc, [{ token, messageId: pending.results[0].messageIds[0] }]);
    return pending;
  });
  await sending.dispatch();
  const [result] = sending.results;
  return {
    credit: toCredits(result.creditUnits),
    reference: result.references[0].reference,
    ...(input.show_id === 1 ? { id: result.messageIds[0] } : {}),
  };
}
