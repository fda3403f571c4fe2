/**
 * Secrets written inside URLs: the password of `scheme://user:password@host`, a user part that is itself a key
 * (`https://sk_live_…:@api.stripe.com`), and query parameters named like a secret (`?password=`, `?access_token=`,
 * `?sslkey=`). The audit log passes every text it records through `redactUrlSecrets`, whatever field holds it.
 */

/** What a secret is replaced with. */
export const REDACTED = '***';

/** Parameter names whose values are secrets: password, pass, pwd, token, secret, key, signature, credential, auth. */
const SECRET_PARAMETER = /pass|pwd|token|secret|key|sig|credential|auth/i;
/** A user part kept as it is: a short plain name that is not a provider's key (sk_…, rk_…, whsec_…, mop_…). */
const PLAIN_USER = /^(?!(?:sk|rk|pk|whsec|mop|ghp|gho|xox[a-z])_)[A-Za-z0-9._%-]{1,32}$/i;
/** A URL inside free text: a scheme, `://`, then everything up to a space or a quote. */
const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]{1,20}:\/\/[^\s"'<>`]+/gi;

export const isSecretParameter = (name: string): boolean => SECRET_PARAMETER.test(name);

/** One URL with its secrets replaced; the rest (scheme, host, path, other parameters) as written. */
function redactUrl(url: string): string {
  const start = url.indexOf('://') + 3;
  const end = url.slice(start).search(/[/?#]/);
  const authority = end < 0 ? url.slice(start) : url.slice(start, start + end);
  const rest = end < 0 ? '' : url.slice(start + end);
  const at = authority.lastIndexOf('@');
  let host = authority;
  if (at >= 0) {
    const userinfo = authority.slice(0, at);
    const colon = userinfo.indexOf(':');
    const user = colon < 0 ? userinfo : userinfo.slice(0, colon);
    const shownUser = user === '' || PLAIN_USER.test(user) ? user : REDACTED;
    host = `${shownUser}${colon < 0 ? '' : `:${REDACTED}`}@${authority.slice(at + 1)}`;
  }
  const query = rest.replace(/([?&;])([^=&#;]*)=([^&#;]*)/g, (whole, sep: string, name: string) =>
    isSecretParameter(decodeSafely(name)) ? `${sep}${name}=${REDACTED}` : whole,
  );
  return url.slice(0, start) + host + query;
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** The text with the secrets of every URL in it replaced by `***` (see the top of this file). */
export const redactUrlSecrets = (text: string): string =>
  text.includes('://') ? text.replace(URL_IN_TEXT, redactUrl) : text;

/** Whether a URL carries a password as a query parameter (`postgres://h/db?password=…`), as libpq reads one. */
export function hasPasswordParameter(url: URL): boolean {
  for (const name of url.searchParams.keys()) if (/pass/i.test(name)) return true;
  return false;
}
