import type { WithConfig } from '../../context.js';
import { toCredits } from '../../accounts/credits.js';
import { ApiError } from '../../http/errors.js';
import { randomToken } from '../../lib/ids.js';
import { send, type SendContext as MessagingSendContext } from '../../messaging/send.js';
import { newReadTokens, readLink, recordReadTrackings, type ReadConfirmationInput } from '../../messaging/tracking.js';
import type { Recipient } from '../../messaging/types.js';
import { acceptedRequest, acceptRecipients, acceptSender } from '../../messaging/accept.js';
import { acceptContent, countAbuseRefusal, familyRules, type RulesContext } from '../../messaging/accept-rules.js';
import { narrowedNumbers } from '../../messaging/send-rules.js';
import { channelNumbers } from '../../phone/accepted.js';
import { checkLength, composeText, ONE_GSM_SMS, parseExtraParams } from './rules.js';
import { parseSendDate } from '../../messaging/schedule.js';
import { insertShortLink, isLandline } from './store.js';
export { clickShortLink, shortLinkTarget } from './store.js';
export { followReadLink } from '../../messaging/tracking.js';
/** What a send of SMS or RCS reads: the send call's services and the families' abuse rules. */
export type SendContext = MessagingSendContext & RulesContext;

/** A send request after schema parsing (routes.ts): the fields whose rules need more than a type. */
export interface SmsSendInput {
  numbers: string;
  message: string;
  country_code: string;
  find_country_code: 0 | 1;
  sender?: string;
  name?: string;
  date?: string;
  sandbox: 0 | 1;
  channel: 1 | 2;
  flash: 0 | 1;
  shorten_url: 0 | 1;
  extra_params?: unknown;
  read_confirmation?: ReadConfirmationInput;
  /** Minutes the messages may wait for their carrier (extension); undefined: the family's default. */
  validity?: number;
}

export interface SmsSendResult {
  code: 'sms_11' | 'sms_19';
  total_messages: number;
  references: Array<{ reference: string; number: string }>;
  credit: number;
  campaignId: number;
}

/** Public address of a short link. */
export const shortLinkUrl = (ctx: WithConfig, code: string) => `${ctx.config.publicBaseUrl}/s/${code}`;

/**
 * POST/GET /sms/send: every rule, then the one send call (send.ts: campaign,
 * messages, debit, dispatch; plus the short link and the read-confirmation
 * links in the same transaction), shared with concurrent sends (group
 * commit). Accepted whole or not at all. A small immediate send is handed
 * over inline by this process, the others by the dispatch lanes. The send
 * path's refusals are thrown as they are: HTTP answers them (refusals.ts).
 */
export async function sendSms(
  ctx: SendContext,
  accountId: number,
  input: SmsSendInput,
  textRules = ONE_GSM_SMS,
): Promise<SmsSendResult> {
  const now = Date.now();
  const channel = input.channel === 2 ? 'rcs' : 'sms';
  const rules = await familyRules(ctx, accountId);
  const numbers = narrowedNumbers(channelNumbers(ctx.config, channel), rules.countries);
  const recipients = acceptRecipients(input.numbers, {
    findCountryCode: input.find_country_code === 1,
    countryCode: input.country_code,
    numbers,
  });
  const shortCode = input.shorten_url === 1 ? randomToken(6) : null;
  const composed = composeText(input.message, shortCode ? shortLinkUrl(ctx, shortCode) : null, textRules);
  // Every read-confirmation link has the same length: one sample checks them all.
  const withReadLink = (text: string, token: string) => `${text} ${readLink(ctx, token)}`;
  checkLength(input.read_confirmation ? withReadLink(composed.text, newReadTokens(1)[0]) : composed.text, textRules);
  const extraParams = parseExtraParams(input.extra_params);
  const scheduledAt = parseSendDate(input.date, now);
  if (input.flash === 1 && input.channel === 2) throw new ApiError(400, 'sms_40');
  const sender = await acceptSender(ctx, accountId, input.sender, channel, rules.sendersRegistered).catch((err) => {
    throw countAbuseRefusal(ctx, err);
  });
  // The text as the client wrote it: a URL the short link replaces is checked too.
  await acceptContent(ctx, accountId, rules, { channel, text: input.message, recipients: recipients.length }).catch(
    (err) => {
      throw countAbuseRefusal(ctx, err);
    },
  );
  const landline =
    recipients.length === 1 &&
    (await isLandline(
      ctx.db.kysely,
      recipients[0].countryCode,
      recipients[0].number.slice(recipients[0].countryCode.length),
    ));

  const tokens = input.read_confirmation ? newReadTokens(recipients.length) : null;
  const perRecipient: Recipient[] = tokens
    ? recipients.map((r, i) => ({ ...r, text: withReadLink(composed.text, tokens[i]) }))
    : recipients;
  const [result] = await send(
    ctx,
    [
      acceptedRequest(
        accountId,
        perRecipient,
        sender,
        {
          channel,
          text: composed.text,
          campaignName: input.name ?? null,
          flash: input.flash === 1,
          sandbox: input.sandbox === 1,
          scheduledAt,
          extraParams,
          ...(input.validity === undefined ? {} : { validUntil: (scheduledAt ?? now) + input.validity * 60_000 }),
        },
        rules.caps,
      ),
    ],
    'inline',
    async (trx, [r]) => {
      if (shortCode && composed.shortenedUrl)
        await insertShortLink(trx, {
          code: shortCode,
          accountId,
          campaignId: r.campaignId,
          url: composed.shortenedUrl,
        });
      if (tokens && input.read_confirmation) {
        await recordReadTrackings(
          trx,
          accountId,
          input.read_confirmation,
          tokens.map((token, i) => ({ token, messageId: r.messageIds[i] })),
        );
      }
    },
  ).catch((err) => {
    throw countAbuseRefusal(ctx, err);
  });
  return {
    code: landline ? 'sms_19' : 'sms_11',
    total_messages: result.references.length,
    references: result.references,
    credit: toCredits(result.creditUnits),
    campaignId: result.campaignId,
  };
}
