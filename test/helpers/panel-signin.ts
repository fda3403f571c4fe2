import type { Harness } from './harness.js';

/** The sign-in form's cookie and token, as a browser gets them (for requests made without the browser). */
export async function signinForm(h: Harness): Promise<{ cookie: string; token: string }> {
  const res = await h.request('GET', '/panel/');
  const cookie = String([res.headers['set-cookie']].flat()[0]).split(';')[0];
  const token = /name="_csrf" value="([^"]+)"/.exec(res.body)![1];
  return { cookie, token };
}

export async function postSignin(h: Harness, email: string, password: string, headers: Record<string, string> = {}) {
  const { cookie, token } = await signinForm(h);
  return h.request('POST', '/panel/signin', {
    form: { _csrf: token, email, password },
    headers: { cookie, ...headers },
  });
}

/** The service the sign-in suites run against: behind a local proxy, carriers polled often. */
export const signinEnv = { TRUST_PROXY: '127.0.0.1', CARRIER_POLL_MS: '200' };
