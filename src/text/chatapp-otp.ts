/**
 * The fixed chat-app OTP text, sent from the service's own official sender:
 * no company, no custom text. The OTP feature fills it in; a chat-app
 * connector recognises a text made from it (to send the code through the
 * provider's authentication template) without knowing the feature.
 */
export const CHATAPP_TEMPLATE = '{{code}} is your verification code. For your security, do not share it with anyone.';

/** The code first, then the template's fixed words: the code is what precedes them. */
const FIXED_WORDS = CHATAPP_TEMPLATE.slice('{{code}} '.length).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const OTP_TEXT = new RegExp(`^(\\S{1,12}) ${FIXED_WORDS}$`);

/** The code of a text made from CHATAPP_TEMPLATE; null for any other text. */
export const chatappOtpCode = (text: string): string | null => OTP_TEXT.exec(text)?.[1] ?? null;
