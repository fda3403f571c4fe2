import { z } from 'zod';
import { bool, flag, optionalText, text } from '../../http/fields.js';
import { ReadConfirmation } from '../../messaging/tracking.js';
import { MAX_VALIDITY_MINUTES } from '../../messaging/traffic.js';

/** channel: 1 SMS (default), 2 RCS; anything else sms_36. */
const channel = z
  .preprocess(
    (v) => (v === undefined || v === null || v === '' ? 1 : v === '1' || v === 1 ? 1 : v === '2' || v === 2 ? 2 : v),
    z.union([z.literal(1), z.literal(2)], { error: 'sms_36' }),
  )
  .meta({
    anyOf: [
      { type: 'string', enum: ['1', '2'] },
      { type: 'integer', enum: [1, 2] },
    ],
    description: 'default 1',
  });

/** country_code: absent means 52; present but empty is sms_05 (checked with the numbers). */
const countryCode = z.preprocess((v) => (v === undefined ? '52' : v === null ? '' : v), text('sms_05', 'sms_18'));

export const SendBody = z.object({
  numbers: text('sms_03', 'sms_04').describe(
    'comma-separated, at most 500, 10 digits each (country code + 10 digits with find_country_code 1)',
  ),
  message: text('sms_01', 'sms_01').describe('at most 160 GSM-7 characters after transliteration'),
  country_code: countryCode.describe('default 52'),
  find_country_code: flag('sms_42'),
  sender: optionalText('sms_38').describe(
    'a registered sender (alphanumeric, short code or long number); unregistered means the default sender',
  ),
  name: optionalText('sms_06')
    .pipe(z.string().max(100, { error: 'sms_06' }).optional())
    .describe('campaign name, at most 100'),
  date: optionalText('sms_21').describe('YYYY-MM-DD HH:MM:SS, America/Mexico_City, future'),
  sandbox: flag('sms_42'),
  channel,
  flash: flag('sms_39'),
  shorten_url: flag('sms_42'),
  extra_params: z
    .unknown()
    .optional()
    .meta({ type: 'string' })
    .describe('JSON object string: at most 3 pairs, keys and values 1 to 255 characters'),
  read_confirmation: ReadConfirmation.meta({
    type: 'object',
    properties: { url: { type: 'string' }, contact: { type: 'integer' } },
  }),
  showCampaignId: bool('sms_42').optional(),
  validity: z
    .preprocess(
      (v) => (v === undefined || v === null || v === '' ? undefined : typeof v === 'string' ? Number(v) : v),
      z
        .number({ error: 'sms_43' })
        .int({ error: 'sms_43' })
        .min(1, { error: 'sms_43' })
        .max(MAX_VALIDITY_MINUTES, { error: 'sms_43' })
        .optional(),
    )
    .meta({ type: 'integer', minimum: 1, maximum: MAX_VALIDITY_MINUTES })
    .describe(
      "(extension) minutes the messages may wait for their carrier; not handed over by then, they close unsent (status 3) and are refunded. Default: the account's (accounts set --validity-minutes), else none",
    ),
});
