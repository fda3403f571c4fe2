import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually } from '../helpers/harness.js';
import { cliEnv, MAIN, runMensajero, startServe, type CliEnv } from '../helpers/cli.js';
import { mostInOneSecond, TestSmsc } from '../helpers/smsc.js';

/** Runs `mensajero <args>` with `input` on standard input (the password kept out of the process list). */
function runWithStdin(
  args: string[],
  env: Record<string, string>,
  input: string,
): Promise<{ code: number | null; stdout: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.on('exit', (code) => resolve({ code, stdout }));
    child.stdin.end(input);
  });
}

/**
 * Several processes on one database is the PostgreSQL deployment (docs/operators/postgresql-and-processes.md):
 * two processes there; on SQLite (one process per file) the same scenario
 * with one process holding both binds.
 */
describeEngines('SMPP connector shared by mensajero processes', (engine) => {
  const processes = engine === 'postgres' ? 2 : 1;
  let e: CliEnv;
  let smsc: TestSmsc;
  beforeAll(async () => {
    e = await cliEnv(
      engine,
      { CARRIER_POLL_MS: '200', DISPATCH_RETRY_MS: '100', WORKER_POLL_MS: '50' },
      { migrated: true },
    );
    smsc = await new TestSmsc({ systemId: 'acme', password: 's3cr3t' }).start();
  });
  afterAll(async () => {
    await smsc.stop();
    await e.cleanup();
  });

  it(`never holds more binds than --binds across ${processes} process(es), and shares the throughput cap`, async () => {
    const added = await runWithStdin(
      [
        'carriers',
        'add',
        'smpp',
        '--name',
        'shared',
        '--host',
        '127.0.0.1',
        '--port',
        String(smsc.port),
        '--system-id',
        'acme',
        '--password',
        '-',
        '--binds',
        '2',
        '--throughput',
        '40',
        '--json',
      ],
      e.env,
      's3cr3t\n',
    );
    expect(added.code).toBe(0);
    expect(added.stdout).not.toContain('s3cr3t');
    expect(JSON.parse(added.stdout)).toMatchObject({
      name: 'shared',
      type: 'smpp',
      binds: 2,
      throughput: 40,
      window: 10,
      bind: 'transceiver',
    });
    expect(
      (
        await runMensajero(
          ['routes', 'add', '--channel', 'sms', '--prefix', '52', '--carriers', 'shared', '--json'],
          e.env,
        )
      ).json,
    ).toEqual({
      id: expect.any(Number),
      channel: 'sms',
      prefix: '52',
      carriers: ['shared'],
      account: null,
      strategy: 'priority',
    });
    const created = await runMensajero(
      ['accounts', 'create', '--email', 'p@example.com', '--password', 'secret123', '--credits', '1000', '--json'],
      e.env,
    );
    expect(created.code, created.stderr).toBe(0);
    const account = created.json;

    const serves = [await startServe(e.env)];
    if (processes === 2) serves.push(await startServe(e.env));
    const [a, b] = [serves[0], serves[serves.length - 1]];
    try {
      // Each process ends up with one of the two binds.
      const status = await eventually(
        async () => {
          const r = (await runMensajero(['carriers', 'status', '--json'], e.env)).json;
          const shared = r?.carriers?.find((c: { name: string }) => c.name === 'shared');
          return shared?.processes === processes && shared.binds === 2 && smsc.binds === 2 ? shared : null;
        },
        30_000,
        200,
      );
      expect(status.state).toBe('bound');

      const numbers = (from: number) =>
        Array.from({ length: 60 }, (_, i) => `55${String(from + i).padStart(8, '0')}`).join(',');
      const sends = await Promise.all(
        [a, b].map((p, k) =>
          fetch(`${p.base}/sms/send`, {
            method: 'POST',
            headers: { apikey: account.apikey, 'content-type': 'application/json' },
            body: JSON.stringify({ numbers: numbers(k * 100), message: 'Hola' }),
          }).then((r) => r.json()),
        ),
      );
      expect(sends.map((s) => s.code)).toEqual(['sms_11', 'sms_11']);
      await eventually(async () => smsc.submitted.length >= 120, 30_000, 100);
      expect(smsc.submitted).toHaveLength(120);
      expect(new Set(smsc.submitted.map((s) => s.destination)).size).toBe(120);
      expect(smsc.maxBinds).toBe(2);

      // The cap held across both processes, measured at the carrier: no sliding second got more than 40.
      const t0 = smsc.arrivals[0].at;
      console.log('ARR', smsc.arrivals.map((a) => a.at - t0).join(','), smsc.arrivals.map((a) => a.peerPort).join(','));
      expect(mostInOneSecond(smsc.arrivals.map((a) => a.at))).toBeLessThanOrEqual(40);
      expect(mostInOneSecond(smsc.arrivals.map((a) => a.at))).toBeGreaterThanOrEqual(20);

      // Fewer binds: the processes give one back without ever exceeding the new figure once it settles.
      await runMensajero(['carriers', 'set', '--name', 'shared', '--binds', '1', '--json'], e.env);
      await eventually(async () => smsc.binds === 1, 30_000, 100);
      smsc.maxBinds = smsc.binds;
      await new Promise((r) => setTimeout(r, 1000)); // five upkeep rounds of each process
      expect(smsc.maxBinds).toBe(1);
    } finally {
      for (const p of serves) p.child.kill('SIGTERM');
      for (const p of serves) expect(await p.exited).toBe(0);
    }
    // Graceful shutdown unbinds.
    await eventually(async () => smsc.binds === 0);
    expect(smsc.unbinds).toBeGreaterThanOrEqual(1);
  }, 120_000);
});
