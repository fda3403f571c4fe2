import { expect, it } from 'vitest';
import { describePanel, withPassword } from '../helpers/panel.js';
import { signinForm } from '../helpers/panel-signin.js';
import { HASHES_PER_CALLER, hashPassword, verifyPassword } from '../../src/lib/passwords.js';

/**
 * Panel sign-in shares the password hashing queue with SMPP binds: each
 * address holds at most HASHES_PER_CALLER hashes at once, and addresses take
 * turns, so one address flooding it cannot keep another's sign-in waiting.
 */
describePanel(
  'panel sign-in and the shared hashing queue',
  { over: 'http', env: { TRUST_PROXY: '127.0.0.1' } },
  (panel) => {
    const post = async (email: string, password: string, address: string, form: { cookie: string; token: string }) =>
      panel.h.request('POST', '/panel/signin', {
        form: { _csrf: form.token, email, password },
        headers: { cookie: form.cookie, 'x-forwarded-for': address },
      });

    it('refuses a sign-in from an address holding its share of hashes, and signs in one from elsewhere', async () => {
      const { h } = panel;
      const a = await withPassword(h, await h.createAccount(0), 'correct horse hashing');
      const stored = await hashPassword('something else');
      const forms = [await signinForm(h), await signinForm(h), await signinForm(h)];
      // The flooding address's share, taken as its SMPP binds or sign-ins would take it.
      const flood = Array.from({ length: HASHES_PER_CALLER }, () => verifyPassword('guess', stored, '203.0.113.50'));
      const [busy, elsewhere] = await Promise.all([
        post(a.email, a.password, '203.0.113.50', forms[0]),
        post(a.email, a.password, '203.0.113.51', forms[1]),
      ]);
      expect(busy.status).toBe(429);
      expect(busy.body).toContain('Demasiados intentos fallidos');
      expect(elsewhere.status).toBe(303);
      expect(await Promise.all(flood)).toEqual(Array(HASHES_PER_CALLER).fill(false));
      // Its share free again, the address signs in.
      expect((await post(a.email, a.password, '203.0.113.50', forms[2])).status).toBe(303);
    });
  },
);
