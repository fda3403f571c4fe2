import { parsePhoneNumberFromString, type NumberType } from 'libphonenumber-js/max';
import type { Channel } from '../channels.js';
import type { Config } from '../config.js';
import { hasNationalLength, isMexicanAreaCode, TEN_DIGIT_CODES } from './numbers.js';

/** The channels that send to a phone number; RCS follows SMS. */
export type SendChannel = Channel;

/**
 * Why a number is refused: its country code is not served on the channel, the
 * national number has not its country's length (10 digits for 52, 1 and 57),
 * or the number is not a line the channel sends to.
 */
export type NumberRefusal = 'country' | 'length' | 'number';

/** The rule of one channel: every path that sends to a number on it (its send endpoint, OTP, payment links) asks it. */
export interface ChannelNumbers {
  channel: SendChannel;
  countryCodes: ReadonlySet<string>;
  /** null when the number (country code and national number, digits only) may be sent to on the channel. */
  refusal(countryCode: string, national: string): NumberRefusal | null;
}

export type NumberConfig = Pick<Config, 'SMS_COUNTRY_CODES' | 'NANP_ALLOWED_REGIONS'>;

/**
 * Lines that belong to a subscriber: libphonenumber's (`max` metadata) mobile
 * and geographic ranges. Premium-rate, toll-free, shared-cost, UAN, VoIP,
 * pager and personal numbers, and whatever the plan does not know, are
 * refused: they are where toll fraud earns (the sender pays the range's owner)
 * or where no code reaches a person.
 */
const LINE_TYPES = new Set<NumberType>(['MOBILE', 'FIXED_LINE', 'FIXED_LINE_OR_MOBILE']);

/**
 * The types of the other countries' numbers (not 52, 1 or 57, whose rule
 * stays the one above): lines that take an SMS or a chat-app message, and
 * for voice landlines too.
 */
const OTHER_TYPES: Record<SendChannel, ReadonlySet<NumberType>> = {
  sms: new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE']),
  rcs: new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE']),
  chatapp: new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE']),
  voice: new Set(['MOBILE', 'FIXED_LINE_OR_MOBILE', 'FIXED_LINE']),
};

/** Voice and chat-app have always reached Mexico only (/voice/send, /chatapp/send). */
const MEXICO_ONLY = new Set(['52']);

const rules = new WeakMap<NumberConfig, Map<SendChannel, ChannelNumbers>>();

/** The number rule of a channel under this configuration (built once per configuration and channel). */
export function channelNumbers(config: NumberConfig, channel: SendChannel): ChannelNumbers {
  let byChannel = rules.get(config);
  if (!byChannel) rules.set(config, (byChannel = new Map()));
  let rule = byChannel.get(channel);
  if (!rule) byChannel.set(channel, (rule = buildRule(config, channel)));
  return rule;
}

function buildRule(config: NumberConfig, channel: SendChannel): ChannelNumbers {
  const countryCodes =
    channel === 'sms' || channel === 'rcs' ? new Set(config.SMS_COUNTRY_CODES.split(',')) : MEXICO_ONLY;
  const nanpRegions = new Set(config.NANP_ALLOWED_REGIONS.split(','));
  const types = OTHER_TYPES[channel];
  return {
    channel,
    countryCodes,
    refusal(countryCode, national) {
      if (!countryCodes.has(countryCode)) return 'country';
      if (!hasNationalLength(countryCode, national)) return 'length';
      const line = TEN_DIGIT_CODES.has(countryCode)
        ? isSubscriberLine(countryCode, national, nanpRegions)
        : hasType(countryCode, national, types);
      return line ? null : 'number';
    },
  };
}

/** A valid number of the plan (length checked before) of one of `types`. */
function hasType(countryCode: string, national: string, types: ReadonlySet<NumberType>): boolean {
  const parsed = parsePhoneNumberFromString(`+${countryCode}${national}`);
  if (!parsed || parsed.countryCallingCode !== countryCode || parsed.nationalNumber !== national) return false;
  const type = parsed.getType();
  return parsed.isValid() && type !== undefined && types.has(type);
}

/**
 * A mobile or geographic line of its country's plan. +1 is shared by the US,
 * Canada and some twenty other countries and territories, with the price of
 * international destinations: only the regions listed are accepted.
 */
function isSubscriberLine(countryCode: string, national: string, nanpRegions: ReadonlySet<string>): boolean {
  // Mexico, most numbers sent to: memoised per area code (see isMexicanAreaCode).
  if (countryCode === '52') return isMexicanAreaCode(national);
  if (!/^\d{4,14}$/.test(national)) return false;
  const parsed = parsePhoneNumberFromString(`+${countryCode}${national}`);
  if (!parsed || parsed.countryCallingCode !== countryCode || parsed.nationalNumber !== national || !parsed.isValid())
    return false;
  const type = parsed.getType();
  if (type === undefined || !LINE_TYPES.has(type)) return false;
  return countryCode !== '1' || (parsed.country !== undefined && nanpRegions.has(parsed.country));
}
