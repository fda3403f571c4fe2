import { resolve } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { describeEngines, eventually, type EngineName } from '../helpers/harness.js';
import { cliEnv, MAIN, runMensajero, startServe } from '../helpers/cli.js';
import { openDatabase } from '../../src/db/engine.js';
import { startRecordingCarrier } from '../chaos/peers.js';

const CREDITS = 1000;

/** Pids of the workers the primary reported as started, in order. */
const workerPids = (log: string) =>
  [...log.matchAll(/"worker_pid":(\d+)[^\n]*"msg":"worker started"/g)].map((m) => Number(m[1]));

async function clusterOfTwo(engine: EngineName) {
  const carrier = await startRecordingCarrier(5);
  const cli = await cliEnv(
    engine,
    {
      CARRIER_MODULE: resolve(import.meta.dirname, '../chaos/carrier.mjs'),
      CHAOS_CARRIER_URL: carrier.url,
      CHAOS_CARRIER_BATCH: '20',
      WORKER_POLL_MS: '20',
      // Long enough that a claim is not lost to a busy event loop (the full suite loads the machine), short enough to take over the killed worker's claims.
      JOB_LEASE_MS: '10000',
      SIMULATOR_DLR_DELAY_MS: '20',
      RATE_LIMIT_PER_SECOND: '10000',
      // Every verify attempt below comes from one number in one second.
      OTP_RESEND_COOLDOWN_SECONDS: '0',
    },
    { migrated: true },
  );
  const db = await openDatabase(cli.env.DATABASE_URL);
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    const created = await runMensajero(
      [
        'accounts',
        'create',
        '--email',
        'cluster@example.com',
        '--password',
        'cluster-password-1',
        '--credits',
        String(CREDITS),
        '--json',
      ],
      cli.env,
    );
    expect(created.code, created.stderr).toBe(0);
    const { apikey, id: accountId } = created.json;
    serve = await startServe(cli.env, ['--workers', '2']);
    const { base, output } = serve;
    await eventually(async () => workerPids(output()).length === 2, 30_000, 50);
    const post = async (path: string, body: unknown) => {
      const r = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { apikey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: r.status, body: (await r.json()) as any };
    };

    // Parallel single-recipient sends and balance reads across both workers: none fails, each charged once.
    const sends = await Promise.all(
      Array.from({ length: 60 }, (_, i) => post('/sms/send', { numbers: String(5520000000 + i), message: 'Hola' })),
    );
    const reads = await Promise.all(Array.from({ length: 30 }, () => post('/credits/consult', {})));
    expect(sends.filter((r) => r.status !== 200).map((r) => r.body)).toEqual([]);
    expect(sends.every((r) => r.body.code === 'sms_11')).toBe(true);
    expect(reads.every((r) => r.status === 200 && r.body.code === 'credit_01')).toBe(true);

    // Parallel verifies of one code across both workers: exactly one success.
    const otp = await post('/v2/otp', {
      phone_number: '5512345678',
      country_code: '52',
      company: 'Acme',
      code_show: 1,
    });
    expect(otp.status).toBe(201);
    const verifies = await Promise.all(
      Array.from({ length: 12 }, () =>
        post('/v2/otp/verify', { phone_number: '5512345678', country_code: '52', code: otp.body.code }),
      ),
    );
    expect(verifies.filter((r) => r.status >= 500)).toEqual([]);
    expect(verifies.filter((r) => r.body.success === true)).toHaveLength(1);

    // kill -9 of one worker in the middle of a batch: the primary replaces it and every message still goes out once.
    const batch = await post('/sms/send', {
      numbers: Array.from({ length: 200 }, (_, i) => String(5530000000 + i)).join(','),
      message: 'Hola',
    });
    expect(batch.body.code).toBe('sms_11');
    const [victim] = workerPids(output());
    process.kill(victim, 'SIGKILL');
    const inFlight = new Set(
      (
        await db.kysely
          .selectFrom('messages')
          .select('id')
          .where('stage', '=', 0)
          .where('claim_token', 'is not', null)
          .execute()
      ).map((m) => m.id),
    );
    await eventually(async () => workerPids(output()).length === 3, 30_000, 50);
    expect(workerPids(output())[2]).not.toBe(victim);
    const during = await post('/credits/consult', {});
    expect(during.status).toBe(200);

    await eventually(
      async () => (await db.kysely.selectFrom('messages').select('id').where('stage', '<', 2).execute()).length === 0,
      120_000,
      100,
    );
    const messages = await db.kysely
      .selectFrom('messages')
      .select(['id', 'price_units'])
      .where('account_id', '=', accountId)
      .execute();
    // 60 single sends, the OTP's code, the batch of 200.
    expect(messages).toHaveLength(261);
    expect(carrier.handOffs.size).toBe(261);
    const outside = carrier.repeated().filter((id) => !inFlight.has(id));
    // What a failure needs to be understood: when each repeated batch arrived and from which process.
    if (outside.length > 0)
      console.info(
        'repeated outside the in-flight set',
        JSON.stringify({ victim, batches: carrier.batches.filter((b) => b.ids.some((id) => outside.includes(id))) }),
      );
    expect(outside).toEqual([]);
    const account = await db.kysely
      .selectFrom('accounts')
      .select('credits')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    expect(account.credits).toBe(CREDITS * 10_000 - messages.reduce((sum, m) => sum + m.price_units, 0));
    expect(output()).not.toMatch(/"level":50[^\n]*"msg":"unexpected error"/);

    // SIGTERM to the primary stops every worker gracefully and exits 0.
    const workersNow = workerPids(output()).slice(1);
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    for (const pid of workersNow) expect(() => process.kill(pid, 0)).toThrow();
  } finally {
    if (serve && serve.child.exitCode === null) serve.child.kill('SIGKILL');
    await db.close();
    await carrier.stop();
    await cli.cleanup();
  }
}

describeEngines('serve --workers 2', (engine) => {
  it(
    'shares the port: parallel sends, reads and verifies exact; a killed worker is replaced, nothing lost',
    () => clusterOfTwo(engine),
    240_000,
  );

  it('exits non-zero when the workers cannot start (port taken)', async () => {
    const taken = createServer();
    const port = await new Promise<number>((r) =>
      taken.listen(0, '127.0.0.1', () => r((taken.address() as AddressInfo).port)),
    );
    const cli = await cliEnv(engine, { WEB_CONCURRENCY: '2' }, { migrated: true });
    try {
      const child = spawn(process.execPath, [MAIN, 'serve'], {
        env: { ...cli.env, PORT: String(port), HOST: '127.0.0.1' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let log = '';
      child.stdout!.on('data', (d) => (log += d));
      child.stderr!.on('data', (d) => (log += d));
      const code = await new Promise<number | null>((r) => child.once('exit', r));
      expect(code, log).not.toBe(0);
      expect(log).toMatch(/EADDRINUSE/);
      expect(log).toMatch(/a worker could not start/);
    } finally {
      taken.close();
      await cli.cleanup();
    }
  }, 60_000);

  it('refuses a worker count that is not a whole number from 1 to 64', async () => {
    const cli = await cliEnv(engine);
    try {
      const r = await runMensajero(['serve', '--workers', '0'], cli.env);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toMatch(/--workers/);
      const bad = await runMensajero(['serve'], { ...cli.env, WEB_CONCURRENCY: 'many' });
      expect(bad.code).not.toBe(0);
      expect(bad.stderr).toMatch(/WEB_CONCURRENCY/);
    } finally {
      await cli.cleanup();
    }
  }, 60_000);
});
