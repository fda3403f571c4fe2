import { CliError } from '../cli/runner.js';
import { ApiError } from '../http/errors.js';
import { isWordKey } from './i18n.js';
import { formatNumber, refuse, wordOr, type View } from './view.js';

// The refusals of the services the operator's pages call, in the panel's words: a service's CliError carries a code and
// the values its sentence names (the operator API keeps it as its error's cause); the panel says it with
// `refused_<code>`, never with the service's English line on a Spanish page.

/** A value a refusal names, as the page says it: a channel or a carrier's setting by its word, a number formatted. */
function paramText(v: View, name: string, value: string | number): string {
  if (typeof value === 'number') return formatNumber(v, value);
  if (name === 'channel') return wordOr(v, 'channel_', value);
  if (name === 'setting') return wordOr(v, 'carrier_field_', value);
  return value;
}

/**
 * What a service refused, in the page's language: its own sentence when its code has one; otherwise a generic one on
 * a Spanish page, the service's line on an English page.
 */
export function refusalText(v: View, refused: unknown): string {
  const refusal = refused instanceof CliError ? refused.refusal : undefined;
  const key = refusal ? `refused_${refusal.code}` : '';
  if (refusal && isWordKey(key)) {
    const params = Object.entries(refusal.params ?? {}).map(([name, value]) => [name, paramText(v, name, value)]);
    return v.t(key, Object.fromEntries(params) as Record<string, string>);
  }
  if (v.lang === 'en' && refused instanceof Error) return refused.message;
  return v.t('refused_other');
}

/**
 * A refusal of the operator API's service in the panel's words: its code is a word of the panel, and `detail` the
 * service's refusal in the page's language (refusalText).
 */
export async function inPanelWords<T>(v: View, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ApiError && isWordKey(err.code))
      throw refuse(err.status, err.code, { detail: refusalText(v, err.cause) });
    throw err;
  }
}
