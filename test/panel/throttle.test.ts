import { expect, it } from 'vitest';
import { Secret, TOTP } from 'otpauth';
import { describePanel, withPassword } from '../helpers/panel.js';
import { startTotp, useTotpCode } from '../../src/panel/totp.js';

/** Whether a panel answer says the password (or code) was checked: right or wrong, not refused unchecked (429). */
const checked = (status: number) => status !== 429;

/**
 * Parallel guesses against the panel's password checks: the throttle reserves
 * each attempt in the database before hashing, so however many arrive at once,
 * at most the limit are ever checked (PANEL_SIGNIN_FAILURES_PER_ACCOUNT 5, _PER_ADDRESS 20).
 */
describePanel('panel throttling of parallel guesses', { over: 'http', env: { TRUST_PROXY: '127.0.0.1' } }, (panel) => {
  let address = 0;
  /** A client address of its own per test, so the per-address counts do not mix. */
  const from = () => ({ 'x-forwarded-for': `198.51.100.${++address}` });

  /** Sign-in forms fetched beforehand, so the posts themselves go out together. */
  async function signinPosts(guesses: Array<{ email: string; password: string }>, headers: Record<string, string>) {
    const { h } = panel;
    const forms = await Promise.all(
      guesses.map(async () => {
        const res = await h.request('GET', '/panel/');
        return {
          cookie: String([res.headers['set-cookie']].flat()[0]).split(';')[0],
          token: /name="_csrf" value="([^"]+)"/.exec(res.body)![1],
        };
      }),
    );
    return Promise.all(
      guesses.map((g, i) =>
        h.request('POST', '/panel/signin', {
          form: { _csrf: forms[i].token, ...g },
          headers: { cookie: forms[i].cookie, ...headers },
        }),
      ),
    );
  }

  it('checks at most PANEL_SIGNIN_FAILURES_PER_ACCOUNT passwords of one email, however many arrive at once', async () => {
    const { h } = panel;
    const a = await withPassword(h, await h.createAccount(0), 'correct horse parallel 1');
    const guesses = Array.from({ length: 60 }, (_, i) => ({
      email: a.email,
      password: i === 52 ? a.password : `guess ${i}`,
    }));
    const answers = await signinPosts(guesses, from());
    expect(answers.filter((r) => checked(r.status)).length).toBeLessThanOrEqual(5);
    expect(answers[52].status).toBe(429);
    expect(answers.filter((r) => r.status === 429).every((r) => r.body.includes('Demasiados intentos fallidos'))).toBe(
      true,
    );
    expect(
      await h.ctx.db.kysely.selectFrom('panel_sessions').select('id').where('principal_id', '=', a.id).execute(),
    ).toHaveLength(0);
    // The right password afterwards: still refused unchecked until the window ends.
    const [later] = await signinPosts([{ email: a.email, password: a.password }], from());
    expect(later.status).toBe(429);
  });

  it('checks at most PANEL_SIGNIN_FAILURES_PER_ADDRESS passwords from one address across emails', async () => {
    const { engine, h } = panel;
    const victim = await withPassword(h, await h.createAccount(0), 'correct horse parallel 2');
    const guesses = Array.from({ length: 60 }, (_, i) =>
      i === 52
        ? { email: victim.email, password: victim.password }
        : { email: `nobody${i}-${engine}@example.com`, password: 'guess' },
    );
    const headers = from();
    const answers = await signinPosts(guesses, headers);
    expect(answers.filter((r) => checked(r.status)).length).toBeLessThanOrEqual(20);
    expect(answers[52].status).toBe(429);
    const [later] = await signinPosts([{ email: victim.email, password: victim.password }], headers);
    expect(later.status).toBe(429);
    // From elsewhere the account is not locked: the email itself was never guessed.
    expect((await signinPosts([{ email: victim.email, password: victim.password }], from()))[0].status).toBe(303);
    // The made-up emails are counted, not logged one row each: at most one counter per email checked.
    const counters = await h.ctx.db.kysely
      .selectFrom('attempt_counters')
      .select('key')
      .where('key', 'like', `signin-email:nobody%-${engine}@example.com`)
      .execute();
    expect(counters.length).toBeLessThanOrEqual(20);
  });

  it('a completed sign-in clears the finished failures of the email', async () => {
    const { h } = panel;
    const a = await withPassword(h, await h.createAccount(0), 'correct horse parallel 4');
    const headers = from();
    const wrong = (n: number) =>
      signinPosts(
        Array.from({ length: n }, (_, i) => ({ email: a.email, password: `guess ${i}` })),
        headers,
      );
    expect((await wrong(4)).map((r) => r.status)).toEqual([401, 401, 401, 401]);
    expect((await signinPosts([{ email: a.email, password: a.password }], headers))[0].status).toBe(303);
    const again = await wrong(8);
    expect(again.filter((r) => r.status === 401)).toHaveLength(5);
  });

  it('checks at most PANEL_SIGNIN_FAILURES_PER_ACCOUNT authenticator codes, however many arrive at once', async () => {
    const { h } = panel;
    const a = await withPassword(h, await h.createAccount(0), 'correct horse parallel 5');
    const key = h.ctx.secrets.panelTotpEncryption;
    const { secret } = await startTotp(h.ctx.db.kysely, key, 'account', a.id, a.email);
    const totp = new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' });
    expect(await useTotpCode(h.ctx.db.kysely, key, 'account', a.id, totp.generate(), true)).toBe(true);
    const headers = from();
    const [password] = await signinPosts([{ email: a.email, password: a.password }], headers);
    expect(password.headers.location).toBe('/panel/totp');
    const cookie = [password.headers['set-cookie']]
      .flat()
      .map(String)
      .find((c) => c.startsWith('mns_session='))!
      .split(';')[0];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(
      (await h.request('GET', '/panel/totp', { headers: { cookie } })).body,
    )![1];
    const right = totp.generate({ timestamp: Date.now() + 30_000 });
    const wrong = (i: number) => (String(100000 + i) === right ? '999999' : String(100000 + i));
    const codes = Array.from({ length: 60 }, (_, i) => (i === 52 ? right : wrong(i)));
    const answers = await Promise.all(
      codes.map((code) =>
        h.request('POST', '/panel/totp', { form: { _csrf: csrf, code }, headers: { cookie, ...headers } }),
      ),
    );
    expect(answers.filter((r) => checked(r.status)).length).toBeLessThanOrEqual(5);
    expect(answers[52].status).toBe(429);
  });

  it('checks at most the limit of passwords given to reveal the API key, however many arrive at once', async () => {
    const { h } = panel;
    const a = await withPassword(h, await h.createAccount(0), 'correct horse parallel 3');
    const headers = from();
    const [signedIn] = await signinPosts([{ email: a.email, password: a.password }], headers);
    expect(signedIn.status).toBe(303);
    const cookie = [signedIn.headers['set-cookie']]
      .flat()
      .map(String)
      .find((c) => c.startsWith('mns_session='))!
      .split(';')[0];
    const page = await h.request('GET', '/panel/integrations', { headers: { cookie } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)![1];
    const reveal = (password: string) =>
      h.request('POST', '/panel/integrations/reveal-key', {
        form: { _csrf: csrf, password },
        headers: { cookie, ...headers },
      });
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => reveal(i === 52 ? a.password : `guess ${i}`)),
    );
    expect(answers.filter((r) => checked(r.status)).length).toBeLessThanOrEqual(5);
    expect(answers[52].status).toBe(429);
    expect(answers.some((r) => r.body.includes(a.apikey))).toBe(false);
    expect((await reveal(a.password)).status).toBe(429);
  });
});
