const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Characters XML 1.0 cannot carry at all (control characters other than tab and newlines). */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

const escape = (text: string) => text.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => ESCAPES[c]);

/**
 * The previous OTP API's xml format: the same fields as its JSON answer,
 * one element each under <response> (true/false for booleans, an empty
 * element for null, one <item> per array entry).
 */
export function toXml(fields: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n<response>${Object.entries(fields)
    .map(([k, v]) => element(k, v))
    .join('')}</response>\n`;
}

function element(name: string, value: unknown): string {
  if (value === null || value === undefined) return `<${name}/>`;
  if (Array.isArray(value)) return `<${name}>${value.map((v) => element('item', v)).join('')}</${name}>`;
  if (typeof value === 'object')
    return `<${name}>${Object.entries(value)
      .map(([k, v]) => element(k, v))
      .join('')}</${name}>`;
  return `<${name}>${escape(String(value))}</${name}>`;
}
