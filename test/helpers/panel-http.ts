import type { Harness, Reply } from './harness.js';

/** The panel over plain HTTP (no browser): sign-in, pages and forms as a browser sends them. */

const cookieOf = (reply: Reply, name: string): string | undefined =>
  [reply.headers['set-cookie']]
    .flat()
    .map(String)
    .find((c) => c.startsWith(`${name}=`) && !c.startsWith(`${name}=;`))
    ?.split(';')[0];

/** Posts the sign-in form; `session` is the session cookie when sign-in succeeded. */
export async function panelSignin(h: Harness, email: string, password: string, headers: Record<string, string> = {}) {
  const form = await h.request('GET', '/panel/', { headers });
  const cookie = cookieOf(form, 'mns_signin') ?? '';
  const token = /name="_csrf" value="([^"]+)"/.exec(String(form.body))?.[1] ?? '';
  const reply = await h.request('POST', '/panel/signin', {
    form: { _csrf: token, email, password },
    headers: { cookie, ...headers },
  });
  return { reply, session: cookieOf(reply, 'mns_session') };
}

export const panelPage = (h: Harness, session: string, path: string, headers: Record<string, string> = {}) =>
  h.request('GET', path, { headers: { cookie: session, ...headers } });

/** Submits a panel form: the CSRF token is read from `page` first, as the browser has it. */
export async function panelAction(
  h: Harness,
  session: string,
  page: string,
  action: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const shown = await panelPage(h, session, page, headers);
  const csrf = /name="_csrf" value="([^"]+)"/.exec(String(shown.body))?.[1] ?? '';
  return h.request('POST', action, { form: { _csrf: csrf, ...form }, headers: { cookie: session, ...headers } });
}
