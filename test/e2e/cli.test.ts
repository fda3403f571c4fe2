import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { cliEnv, runMensajero, startServe, type CliEnv } from '../helpers/cli.js';

describeEngines('mensajero CLI and serve', (engine) => {
  let e: CliEnv;
  beforeAll(async () => {
    e = await cliEnv(engine);
  });
  afterAll(() => e.cleanup());

  it('migrate prints {"migrated": true}', async () => {
    const r = await runMensajero(['migrate', '--json'], e.env);
    expect(r.json).toEqual({ migrated: true });
  });

  it('administers an account while the service runs, as docs/operators/cli.md says', async () => {
    const serve = await startServe(e.env);
    try {
      const created = await runMensajero(
        ['accounts', 'create', '--email', 'a@example.com', '--password', 'secret123', '--credits', '100', '--json'],
        e.env,
      );
      expect(created.code).toBe(0);
      expect(created.json).toMatchObject({ id: expect.any(Number), email: 'a@example.com', credits: 100 });
      const key = created.json.apikey as string;
      expect(key.length).toBeGreaterThan(40);

      const consult = await fetch(`${serve.base}/credits/consult`, { method: 'POST', headers: { apikey: key } });
      expect(await consult.json()).toEqual({
        success: true,
        message: 'available_credits',
        status: 200,
        code: 'credit_01',
        credit: 100,
      });
      const anonymous = await fetch(`${serve.base}/credits/consult`, { method: 'POST' });
      expect(anonymous.status).toBe(401);
      expect((await anonymous.json()).code).toBe('auth_05');

      const credited = await runMensajero(
        ['accounts', 'credits', '--email', 'a@example.com', '--add', '-40', '--json'],
        e.env,
      );
      expect(credited.json).toEqual({ email: 'a@example.com', credits: 60 });
      const overdraw = await runMensajero(
        ['accounts', 'credits', '--email', 'a@example.com', '--add', '-61', '--json'],
        e.env,
      );
      expect(overdraw.code).not.toBe(0);
      expect(overdraw.json.error).toMatch(/below zero/);

      const set = await runMensajero(
        [
          'accounts',
          'set',
          '--email',
          'a@example.com',
          '--webhook-method',
          'GET',
          '--allow-ip',
          '10.0.0.0/8,2001:db8::/32',
          '--json',
        ],
        e.env,
      );
      expect(set.json).toMatchObject({
        email: 'a@example.com',
        webhook_method: 'GET',
        allow_ips: ['10.0.0.0/8', '2001:db8::/32'],
      });
      const blocked = await fetch(`${serve.base}/credits/consult`, { method: 'POST', headers: { apikey: key } });
      expect(blocked.status).toBe(403);
      await runMensajero(['accounts', 'set', '--email', 'a@example.com', '--allow-ip', 'none', '--json'], e.env);

      const rotated = await runMensajero(['accounts', 'rotate-key', '--email', 'a@example.com', '--json'], e.env);
      expect(rotated.json.email).toBe('a@example.com');
      expect(rotated.json.apikey).not.toBe(key);
      expect((await fetch(`${serve.base}/credits/consult`, { method: 'POST', headers: { apikey: key } })).status).toBe(
        401,
      );
      expect(
        (await fetch(`${serve.base}/credits/consult`, { method: 'POST', headers: { apikey: rotated.json.apikey } }))
          .status,
      ).toBe(200);
    } finally {
      serve.child.kill('SIGTERM');
      expect(await serve.exited).toBe(0);
    }
    // Seven CLI processes, each starting Node and opening the database: slow on a loaded machine.
  }, 120_000);

  it('refuses a duplicate email and an unknown account with an error object', async () => {
    const dup = await runMensajero(
      ['accounts', 'create', '--email', 'dup@example.com', '--password', 'x', '--json'],
      e.env,
    );
    expect(dup.code).toBe(0);
    const again = await runMensajero(
      ['accounts', 'create', '--email', 'dup@example.com', '--password', 'x', '--json'],
      e.env,
    );
    expect(again.code).toBe(2);
    expect(again.json.error).toMatch(/exists/);
    const missing = await runMensajero(['accounts', 'rotate-key', '--email', 'nobody@example.com', '--json'], e.env);
    expect(missing.code).toBe(2);
  });
});
