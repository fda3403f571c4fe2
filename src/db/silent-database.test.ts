import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropSchema, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { SilentLink } from '../../test/helpers/silent-link.js';
import { openDatabase, type Db, type PgLimits } from './engine.js';
import { DatabaseLiveness } from './liveness.js';

const url = process.env.TEST_DATABASE_URL;
const LIMITS: PgLimits = {
  statementMs: 1500,
  lockMs: 10_000,
  idleInTransactionMs: 400,
  connectMs: 500,
  keepAliveMs: 1000,
};

/**
 * A process whose network to PostgreSQL falls silent (packets dropped, no
 * reset): the others do not wait on its locks, and it neither hangs nor
 * calls itself ready.
 */
describe.runIf(url)('a database behind a network that falls silent', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let link: SilentLink;
  let cutOff: Db;
  let direct: Db;
  beforeAll(async () => {
    link = await SilentLink.toPostgres(url!);
    direct = await openDatabase(url!, { pgSchema: schema, limits: LIMITS });
    await sql`create table balances (id int primary key, credits int not null)`.execute(direct.kysely);
    await sql`insert into balances values (1, 100)`.execute(direct.kysely);
    cutOff = await openDatabase(link.through(url!), { pgSchema: schema, limits: LIMITS });
  });
  afterAll(async () => {
    link.heal();
    await Promise.all([cutOff?.close(), direct?.close()]);
    await link.stop();
    await dropSchema(schema);
  });

  it("releases the locks of a process cut off inside a transaction: another process's debit goes through", async () => {
    const debitedByOther = cutOff.kysely.transaction().execute(async (trx) => {
      await sql`update balances set credits = credits - 1 where id = 1`.execute(trx);
      link.silence();
      // The other process debits the same row: it waits only until the server ends the silent session.
      await sql`update balances set credits = credits - 10 where id = 1`.execute(direct.kysely);
      return true;
    });
    // The cut-off process cannot commit: its session was ended, and it learns so instead of hanging.
    await expect(debitedByOther).rejects.toThrow();
    link.heal();
    const { rows } = await sql<{ credits: number }>`select credits from balances where id = 1`.execute(direct.kysely);
    expect(rows[0].credits).toBe(90);
  });

  it('gives up on a query the network swallowed, and works again once it heals', async () => {
    link.silence();
    await expect(sql`select 1`.execute(cutOff.kysely)).rejects.toThrow();
    link.heal();
    const answers = () =>
      sql`select 1`.execute(cutOff.kysely).then(
        () => true,
        () => false,
      );
    await eventually(answers);
  });

  it('says it lost the database, and when it has it again', async () => {
    const lines: string[] = [];
    const liveness = new DatabaseLiveness(cutOff, { warn: (_o: unknown, msg?: string) => lines.push(msg!) } as never);
    expect(await liveness.probe()).toBe(true);
    link.silence();
    expect(await liveness.probe()).toBe(false);
    expect(await liveness.probe()).toBe(false);
    link.heal();
    await eventually(() => liveness.probe());
    expect(lines).toEqual(['the database does not answer: this process is not ready', 'the database answers again']);
  });
});

describe.runIf(url)('readiness of a service whose database falls silent', () => {
  let link: SilentLink;
  let h: Harness;
  beforeAll(async () => {
    link = await SilentLink.toPostgres(url!);
    h = await startHarness('postgres', {
      env: { DATABASE_URL: link.through(url!), PG_STATEMENT_TIMEOUT_MS: '1500', PG_CONNECT_TIMEOUT_MS: '500' },
      worker: false,
    });
  });
  afterAll(async () => {
    link.heal();
    await h?.close();
    await link.stop();
  });

  it('answers /readyz 503 while the database is silent, and the metric says 0; 200 and 1 once it heals', async () => {
    expect((await h.get('/readyz')).status).toBe(200);
    link.silence();
    expect((await h.get('/readyz')).status).toBe(503);
    expect((await h.get('/metrics')).body).toContain('mensajero_database_up 0');
    link.heal();
    await eventually(async () => (await h.get('/readyz')).status === 200);
    expect((await h.get('/metrics')).body).toContain('mensajero_database_up 1');
  });
});
