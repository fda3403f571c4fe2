import { execFile } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { cliEnv, MAIN, runMensajero, startServe, type CliEnv } from '../helpers/cli.js';
import { startTestStripe, type TestStripe } from '../helpers/stripe.js';

/** `mensajero <args>` with `input` on standard input. */
function withStdin(args: string[], env: Record<string, string>, input: string): Promise<{ code: number; out: string }> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [MAIN, ...args], { env, timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, out: stdout + stderr }),
    );
    child.stdin!.end(input);
  });
}

describeEngines('mensajero payment-provider (operator CLI) and a serve process using it', (engine) => {
  let e: CliEnv;
  let stripe: TestStripe;
  beforeAll(async () => {
    [e, stripe] = await Promise.all([cliEnv(engine, {}, { migrated: true }), startTestStripe()]);
  });
  afterAll(async () => {
    await Promise.all([e.cleanup(), stripe.close()]);
  });

  it('stores the secrets from stdin sealed, never prints them, and serve opens Stripe sessions with them', async () => {
    const bad = await withStdin(
      ['payment-provider', 'set-stripe', '--api-base', stripe.url, '--json'],
      e.env,
      'not-a-key\n',
    );
    expect(bad.code).toBe(2);
    const set = await withStdin(
      ['payment-provider', 'set-stripe', '--api-base', stripe.url, '--json'],
      e.env,
      `${stripe.secretKey}\n${stripe.webhookSecret}\n`,
    );
    expect(set.code).toBe(0);
    expect(JSON.parse(set.out)).toMatchObject({
      provider: 'stripe',
      api_base: stripe.url,
      webhook_path: '/payments/stripe/webhook',
    });
    const shown = await runMensajero(['payment-provider', 'show', '--json'], e.env);
    expect(shown.json).toEqual({ provider: 'stripe', api_base: stripe.url, secret_key: 'set', webhook_secret: 'set' });
    for (const out of [set.out, shown.stdout, shown.stderr]) {
      expect(out).not.toContain(stripe.secretKey);
      expect(out).not.toContain(stripe.webhookSecret);
    }

    const serve = await startServe(e.env);
    try {
      const created = await runMensajero(
        ['accounts', 'create', '--email', 'pay@example.com', '--password', 'secret123', '--credits', '10', '--json'],
        e.env,
      );
      const r = await fetch(`${serve.base}/paymentrequest/send`, {
        method: 'POST',
        headers: { apikey: created.json.apikey, 'content-type': 'application/json' },
        body: JSON.stringify({
          number: '5512345678',
          country_code: '52',
          template: 'Renta',
          message: 'Paga aqui',
          amount: 500,
        }),
      });
      const body = (await r.json()) as { request_id: string; payment_url: string };
      expect(r.status).toBe(200);
      expect(stripe.creations.map((c) => c.idempotencyKey)).toEqual([body.request_id]);
      const link = await fetch(body.payment_url.replace(/^https?:\/\/[^/]+/, serve.base), { redirect: 'manual' });
      expect(link.status).toBe(303);
      expect(link.headers.get('location')).toMatch(new RegExp(`^${stripe.url}/c/pay/cs_test_`));
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }

    expect((await runMensajero(['payment-provider', 'use-simulator', '--json'], e.env)).json).toEqual({
      provider: 'simulator',
      removed: true,
    });
  }, 120_000);
});
