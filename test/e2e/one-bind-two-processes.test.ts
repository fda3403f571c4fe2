import { request } from 'node:http';
import { expect, it } from 'vitest';
import { describeEngines, eventually, type EngineName } from '../helpers/harness.js';
import { cliEnv, runMensajero, startServe } from '../helpers/cli.js';
import { TestSmsc } from '../helpers/smsc.js';
import { openDatabase } from '../../src/db/engine.js';

const SENDS = 20;

/** One request on a connection of its own: the cluster hands each connection to its processes in turn. */
function postOnNewConnection(url: string, apikey: string, body: unknown): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent: false, headers: { apikey, 'content-type': 'application/json' } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/**
 * `mensajero serve --workers 2` with an SMPP carrier of one bind: one process
 * holds it, the other none. The route names the simulator after the carrier.
 * Returns where each of SENDS single sends went and what the SMSC received.
 */
async function singleSendsWithOneBind(engine: EngineName) {
  const smsc = await new TestSmsc({ systemId: 'acme', password: 'secret1' }).start();
  const cli = await cliEnv(engine, {
    WORKER_POLL_MS: '20',
    CARRIER_POLL_MS: '100',
    DISPATCH_RETRY_MS: '200',
    RATE_LIMIT_PER_SECOND: '1000',
  });
  const db = await openDatabase(cli.env.DATABASE_URL);
  let serve: Awaited<ReturnType<typeof startServe>> | undefined;
  try {
    const created = await runMensajero(
      [
        ...['accounts', 'create', '--email', 'binds@example.com', '--password', 'binds-password-1'],
        ...['--credits', '1000', '--json'],
      ],
      cli.env,
    );
    expect(created.code, created.stderr).toBe(0);
    const { apikey } = created.json;
    const carrier = await runMensajero(
      [
        ...['carriers', 'add', 'smpp', '--name', 'telcel', '--host', '127.0.0.1', '--port', String(smsc.port)],
        ...['--system-id', 'acme', '--password', 'secret1', '--binds', '1'],
      ],
      cli.env,
    );
    expect(carrier.code, carrier.stderr).toBe(0);
    const route = await runMensajero(
      ['routes', 'add', '--channel', 'sms', '--prefix', '52', '--carriers', 'telcel,simulator'],
      cli.env,
    );
    expect(route.code, route.stderr).toBe(0);
    serve = await startServe(cli.env, ['--workers', '2']);
    // Both processes report the connector, one of them bound: the deployment is settled.
    await eventually(
      async () => {
        const rows = await db.kysely
          .selectFrom('carrier_process_status')
          .select(['holder', 'state'])
          .where('carrier', '=', 'telcel')
          .where('updated_at', '>', Date.now() - 1000)
          .execute();
        return smsc.binds === 1 && rows.length === 2 && rows.filter((r) => r.state === 'bound').length === 1;
      },
      30_000,
      50,
    );
    // A few upkeep rounds, so that each process has read the other's report.
    await new Promise((r) => setTimeout(r, 1000));
    const status = await runMensajero(['carriers', 'status', '--json'], cli.env);
    expect(status.code, status.stderr).toBe(0);
    for (let i = 0; i < SENDS; i++) {
      const status = await postOnNewConnection(`${serve.base}/sms/send`, apikey, {
        numbers: String(5530000000 + i),
        message: 'Hola',
      });
      expect(status).toBe(200);
    }
    await eventually(
      async () => (await db.kysely.selectFrom('messages').select('id').where('stage', '=', 0).execute()).length === 0,
      60_000,
      50,
    );
    const messages = await db.kysely.selectFrom('messages').select(['carrier', 'route_reason', 'number']).execute();
    return { messages, submitted: smsc.submitted.map((s) => s.destination), status: status.json };
  } finally {
    serve?.child.kill('SIGKILL');
    await db.close();
    await smsc.stop();
    await cli.cleanup();
  }
}

describeEngines('one bind, two processes', (engine) => {
  it(
    'every single send reaches the carrier; none fails over because its process holds no bind',
    { timeout: 120_000 },
    async () => {
      const r = await singleSendsWithOneBind(engine);
      expect(r.messages).toHaveLength(SENDS);
      expect(r.messages.filter((m) => m.carrier !== 'telcel')).toEqual([]);
      expect(r.messages.filter((m) => m.route_reason?.startsWith('failover'))).toEqual([]);
      expect(new Set(r.submitted).size).toBe(SENDS);
      expect(r.submitted).toHaveLength(SENDS);
      // `carriers status` names the binds of each process: one holds the one bind, the other none.
      const telcel = r.status.carriers.find((c: { name: string }) => c.name === 'telcel');
      expect(telcel.binds).toBe(1);
      expect(telcel.processes).toBe(2);
      expect(telcel.binds_per_process.map((p: { binds: number }) => p.binds).sort()).toEqual([0, 1]);
    },
  );
});
