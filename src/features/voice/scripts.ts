import { trimEndWhere } from '../../text/trim.js';
/**
 * The pre-recorded scripts of /voice/send. A script is the exact text the
 * text-to-speech engine reads: an opening naming the company (when given),
 * the template's body, and the code read character by character.
 */
export const TEMPLATES = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'] as const;
export type Template = (typeof TEMPLATES)[number];

interface Script {
  /** What the template is for (docs/api, OpenAPI). */
  purpose: string;
  body: string;
  /** The sentence that introduces the code, when one is given. */
  codeIntro: string;
  codeRequired: boolean;
}

export const SCRIPTS: Record<Exclude<Template, 'k'>, Script> = {
  a: { purpose: 'verification code', body: '', codeIntro: 'Tu código de verificación es', codeRequired: true },
  b: {
    purpose: 'appointment reminder',
    body: 'Te recordamos tu próxima cita. Por favor llega diez minutos antes.',
    codeIntro: 'Tu número de confirmación es',
    codeRequired: false,
  },
  c: {
    purpose: 'order received',
    body: 'Recibimos tu pedido y ya lo estamos preparando.',
    codeIntro: 'Tu número de pedido es',
    codeRequired: false,
  },
  d: {
    purpose: 'order shipped',
    body: 'Tu pedido va en camino y llegará pronto.',
    codeIntro: 'Tu número de guía es',
    codeRequired: false,
  },
  e: {
    purpose: 'payment reminder',
    body: 'Tienes un pago pendiente. Paga a tiempo para evitar cargos adicionales.',
    codeIntro: 'Tu referencia de pago es',
    codeRequired: false,
  },
  f: {
    purpose: 'payment received',
    body: 'Recibimos tu pago. Gracias por tu preferencia.',
    codeIntro: 'Tu número de comprobante es',
    codeRequired: false,
  },
  g: {
    purpose: 'security alert',
    body: 'Detectamos un nuevo inicio de sesión en tu cuenta. Si no fuiste tú, cambia tu contraseña de inmediato.',
    codeIntro: 'El folio del aviso es',
    codeRequired: false,
  },
  h: {
    purpose: 'password reset',
    body: 'Recibimos una solicitud para restablecer tu contraseña. Si no la hiciste, ignora esta llamada.',
    codeIntro: 'Tu código para restablecerla es',
    codeRequired: false,
  },
  i: {
    purpose: 'order ready for pickup',
    body: 'Tu pedido está listo para recoger en sucursal.',
    codeIntro: 'Tu número de recolección es',
    codeRequired: false,
  },
  j: {
    purpose: 'welcome',
    body: 'Te damos la bienvenida. Gracias por registrarte.',
    codeIntro: 'Tu número de cliente es',
    codeRequired: false,
  },
};

/** Read character by character: "A7K2" → "A, 7, K, 2" (commas make the engine pause). */
export const spell = (code: string): string => [...code].join(', ');

/**
 * Text as the voice engine may read it: whitespace becomes one space and
 * every character other than a letter, a digit, a comma, a period or a
 * space is removed.
 */
export function speakable(text: string): string {
  return text
    .replace(/\s+/gu, ' ')
    .replace(/[^\p{L}\p{Nd},. ]/gu, '')
    .replace(/ {2,}/g, ' ')
    .trim();
}

export interface ScriptInput {
  template: Template;
  /** Already speakable; empty or absent: the script names no company. */
  company?: string;
  /** 4 to 11 letters or digits (never with k). */
  code?: string;
  /** Already speakable; required with k. */
  voiceMessage?: string;
}

/** The final text of a call. */
export function renderScript({ template, code, voiceMessage, ...rest }: ScriptInput): string {
  // "Acme Co." must not end the opening sentence with two periods.
  const company =
    rest.company === undefined ? undefined : trimEndWhere(rest.company, (c) => c === '.' || c === ',' || /\s/.test(c));
  if (template === 'k') return company ? `Mensaje de ${company}. ${voiceMessage ?? ''}`.trim() : (voiceMessage ?? '');
  const script = SCRIPTS[template];
  const parts = [company ? `Hola, te llamamos de ${company}.` : 'Hola.'];
  if (script.body) parts.push(script.body);
  if (code) {
    parts.push(`${script.codeIntro}: ${spell(code)}.`);
    // A verification code is repeated: the listener cannot scroll back.
    if (template === 'a') parts.push(`Repito: ${spell(code)}. No compartas este código con nadie.`);
  }
  return parts.join(' ');
}
