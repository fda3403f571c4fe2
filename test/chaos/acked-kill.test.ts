import { sql } from 'kysely';
import { expect, it } from 'vitest';
import { describeEngines, eventually, type EngineName } from '../helpers/harness.js';
import { cliEnv, runMensajero, startServe } from '../helpers/cli.js';
import { TestSmsc } from '../helpers/smsc.js';
import { openDatabase, type Db } from '../../src/db/engine.js';

const TOTAL = 200;
const WINDOW = 10;
const BINDS = 2;

/** Which record the database refuses while the SMSC acknowledges: the carrier ids, or the hand-off's outcome. */
type Fault = 'carrier ids' | 'outcome';

/** A trigger that makes that write fail, as if the process died before it. */
async function inject(db: Db, fault: Fault): Promise<void> {
  const table = fault === 'carrier ids' ? 'smpp_ids' : 'messages';
  const event = fault === 'carrier ids' ? 'INSERT' : 'UPDATE OF stage';
  if (db.engine === 'sqlite') {
    const when = fault === 'outcome' ? 'WHEN NEW.stage = 1' : '';
    await sql`CREATE TRIGGER acked_fault BEFORE ${sql.raw(event)} ON ${sql.raw(table)} ${sql.raw(when)} BEGIN SELECT RAISE(ABORT, 'injected fault'); END`.execute(
      db.kysely,
    );
    return;
  }
  await sql`CREATE FUNCTION acked_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$`.execute(
    db.kysely,
  );
  const when = fault === 'outcome' ? 'WHEN (NEW.stage = 1)' : '';
  await sql`CREATE TRIGGER acked_fault BEFORE ${sql.raw(event)} ON ${sql.raw(table)} FOR EACH ROW ${sql.raw(when)} EXECUTE FUNCTION acked_fault()`.execute(
    db.kysely,
  );
}

async function heal(db: Db, fault: Fault): Promise<void> {
  const table = fault === 'carrier ids' ? 'smpp_ids' : 'messages';
  await sql`DROP TRIGGER acked_fault${sql.raw(db.engine === 'postgres' ? ` ON ${table}` : '')}`.execute(db.kysely);
}

/**
 * `mensajero serve` with an SMPP carrier (window 10, 2 binds) sends a
 * campaign of 200 while the database refuses `fault`; it is killed (-9) once
 * the SMSC has acknowledged what it could. A fresh process takes over after
 * the claims run out. Returns the submits the SMSC received for a number it
 * had already taken, counted at the SMSC.
 */
async function killAfterAcks(engine: EngineName, fault: Fault) {
  const smsc = await new TestSmsc({ systemId: 'acme', password: 'secret1' }).start();
  const cli = await cliEnv(
    engine,
    {
      JOB_LEASE_MS: '2000',
      WORKER_POLL_MS: '20',
      CARRIER_POLL_MS: '100',
      DISPATCH_RETRY_MS: '200',
      RATE_LIMIT_PER_SECOND: '1000',
    },
    { migrated: true },
  );
  const db = await openDatabase(cli.env.DATABASE_URL);
  const children: Array<Awaited<ReturnType<typeof startServe>>> = [];
  try {
    const created = await runMensajero(
      [
        'accounts',
        'create',
        '--email',
        'acked@example.com',
        '--password',
        'acked-password-1',
        '--credits',
        '1000',
        '--json',
      ],
      cli.env,
    );
    expect(created.code, created.stderr).toBe(0);
    const { apikey } = created.json;
    const carrier = await runMensajero(
      [
        ...['carriers', 'add', 'smpp', '--name', 'telcel', '--host', '127.0.0.1', '--port', String(smsc.port)],
        ...['--system-id', 'acme', '--password', 'secret1', '--window', String(WINDOW), '--binds', String(BINDS)],
      ],
      cli.env,
    );
    expect(carrier.code, carrier.stderr).toBe(0);
    const route = await runMensajero(
      ['routes', 'add', '--channel', 'sms', '--prefix', '52', '--carriers', 'telcel'],
      cli.env,
    );
    expect(route.code, route.stderr).toBe(0);
    const first = await startServe(cli.env);
    children.push(first);
    await eventually(async () => smsc.binds === BINDS, 30_000, 50);
    await inject(db, fault);
    const numbers = Array.from({ length: TOTAL }, (_, i) => String(5530000000 + i));
    const sent = await fetch(`${first.base}/sms/send`, {
      method: 'POST',
      headers: { apikey, 'content-type': 'application/json' },
      body: JSON.stringify({ numbers: numbers.join(','), message: 'Hola' }),
    }).then((r) => r.json() as Promise<{ code: string }>);
    expect(sent.code).toBe('sms_11');
    // The worst moment: the SMSC acknowledged every submit it got, and the record of them cannot be written.
    if (fault === 'outcome')
      await eventually(
        async () =>
          Number(
            (await db.kysely.selectFrom('smpp_ids').select(db.kysely.fn.countAll().as('n')).executeTakeFirst())?.n,
          ) === TOTAL,
        30_000,
      );
    else await eventually(async () => smsc.received >= WINDOW * BINDS, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    const receivedAtKill = smsc.received;
    const takenBeforeKill = new Set(smsc.submitted.map((s) => s.destination));
    first.child.kill('SIGKILL');
    await first.exited;
    const unsentAtKill = await db.kysely.selectFrom('messages').select('id').where('stage', '=', 0).execute();
    await heal(db, fault);

    const fresh = await startServe(cli.env);
    children.push(fresh);
    await eventually(
      async () => (await db.kysely.selectFrom('messages').select('id').where('stage', '=', 0).execute()).length === 0,
      120_000,
      100,
    );
    const perNumber = new Map<string, number>();
    for (const s of smsc.submitted) perNumber.set(s.destination, (perNumber.get(s.destination) ?? 0) + 1);
    const resent = [...perNumber.values()].reduce((n, k) => n + k - 1, 0);
    const messages = await db.kysely
      .selectFrom('messages')
      .select(['stage', 'status', 'carrier', 'carrier_id', 'sent_at'])
      .execute();
    console.info(
      'acked kill',
      JSON.stringify({
        engine,
        fault,
        receivedAtKill,
        unsentAtKill: unsentAtKill.length,
        received: smsc.received,
        resent,
      }),
    );
    const twice = [...perNumber].filter(([, n]) => n > 1).map(([number]) => number);
    return { resent, receivedAtKill, perNumber, messages, twice, takenBeforeKill };
  } finally {
    for (const c of children) c.child.kill('SIGKILL');
    await db.close();
    await smsc.stop();
    await cli.cleanup();
  }
}

describeEngines('chaos: kill -9 after the SMSC acknowledged, before the record', (engine) => {
  it('the carrier ids cannot be recorded: at most window × binds are sent again', { timeout: 180_000 }, async () => {
    const r = await killAfterAcks(engine, 'carrier ids');
    expect(r.receivedAtKill).toBeLessThanOrEqual(WINDOW * BINDS);
    expect(r.resent).toBeLessThanOrEqual(WINDOW * BINDS);
    expect(r.perNumber.size).toBe(TOTAL);
    expect(r.messages.every((m) => m.stage >= 1 && m.carrier === 'telcel' && m.carrier_id)).toBe(true);
  });

  it('the carrier ids were recorded, the outcome was not: nothing is sent again', { timeout: 180_000 }, async () => {
    const r = await killAfterAcks(engine, 'outcome');
    expect(r.receivedAtKill).toBe(TOTAL);
    expect(r.resent).toBe(0);
    expect(r.perNumber.size).toBe(TOTAL);
    expect(
      r.messages.every(
        (m) => m.stage === 1 && m.status === 'sent' && m.carrier === 'telcel' && m.carrier_id && m.sent_at,
      ),
    ).toBe(true);
  });
});
