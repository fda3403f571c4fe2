import { request } from 'node:http';
import { expect, it } from 'vitest';
import { describeEngines, eventually, type EngineName } from '../helpers/harness.js';
import { cliEnv, runMensajero, startServe } from '../helpers/cli.js';
import { TestSmsc } from '../helpers/smsc.js';
import { openDatabase } from '../../src/db/engine.js';

const SENDS = 20;

const CODES = 6;

/** One request on a connection of its own: the cluster hands each connection to its processes in turn. */
function postOnNewConnection(url: string, apikey: string, body: unknown): Promise<{ status?: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', agent: false, headers: { apikey, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(text) }));
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
  const cli = await cliEnv(
    engine,
    { WORKER_POLL_MS: '20', CARRIER_POLL_MS: '100', DISPATCH_RETRY_MS: '200', RATE_LIMIT_PER_SECOND: '1000' },
    { migrated: true },
  );
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
      const sent = await postOnNewConnection(`${serve.base}/sms/send`, apikey, {
        numbers: String(5530000000 + i),
        message: 'Hola',
      });
      expect(sent.status).toBe(200);
    }
    const codes = [];
    for (let i = 0; i < CODES; i++)
      codes.push(
        await postOnNewConnection(`${serve.base}/v2/otp`, apikey, {
          phone_number: String(5540000000 + i),
          country_code: '52',
          company: 'Acme',
        }),
      );
    await eventually(
      async () => (await db.kysely.selectFrom('messages').select('id').where('stage', '=', 0).execute()).length === 0,
      60_000,
      50,
    );
    const messages = await db.kysely
      .selectFrom('messages')
      .select(['carrier', 'route_reason', 'number', 'text'])
      .execute();
    return { messages, codes, submitted: smsc.submitted.map((s) => s.destination), status: status.json };
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
      expect(r.messages).toHaveLength(SENDS + CODES);
      expect(r.messages.filter((m) => m.carrier !== 'telcel')).toEqual([]);
      expect(r.messages.filter((m) => m.route_reason?.startsWith('failover'))).toEqual([]);
      expect(new Set(r.submitted).size).toBe(SENDS + CODES);
      expect(r.submitted).toHaveLength(SENDS + CODES);
      // OTP codes through the process without the bind too: answered as sent, and stored with the code masked.
      for (const code of r.codes) {
        expect(code.status).toBe(201);
        expect(code.body.warnings ?? []).toEqual([]);
      }
      const codeTexts = r.messages.filter((m) => m.number.startsWith('52554')).map((m) => m.text);
      expect(codeTexts).toEqual(Array(CODES).fill('****** is your verification code from Acme. Do not share it.'));
      // `carriers status` names the binds of each process: one holds the one bind, the other none.
      const telcel = r.status.carriers.find((c: { name: string }) => c.name === 'telcel');
      expect(telcel.binds).toBe(1);
      expect(telcel.processes).toBe(2);
      expect(telcel.binds_per_process.map((p: { binds: number }) => p.binds).sort()).toEqual([0, 1]);
    },
  );
});
