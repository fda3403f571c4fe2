import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dropSchema } from '../../test/helpers/harness.js';
import { openDatabase, type Db } from './engine.js';
import { MAX_PREPARED } from './pg-prepared.js';

const url = process.env.TEST_DATABASE_URL;

/** The statements the connection has prepared (a pool of one: every query runs on it), this query's own left out. */
async function prepared(db: Db): Promise<string[]> {
  const { rows } = await sql<{ statement: string }>`
    select statement from pg_prepared_statements where statement not like '%pg_prepared_statements%'`.execute(
    db.kysely,
  );
  return rows.map((r) => r.statement);
}

describe.runIf(url)('PostgreSQL connections prepare the statements they repeat', () => {
  const schema = `t_${randomBytes(6).toString('hex')}`;
  let db: Db;
  let unprepared: Db;
  // Each test on new connections: what one prepared does not carry over.
  beforeEach(async () => {
    db = await openDatabase(url!, { pgSchema: schema, poolSize: 1, preparedStatements: true });
    unprepared = await openDatabase(url!, { pgSchema: schema, poolSize: 1 });
    await sql`drop table if exists balances`.execute(db.kysely);
    await sql`create table balances (id int primary key, credits int not null)`.execute(db.kysely);
    await sql`insert into balances values (1, 100), (2, 5)`.execute(db.kysely);
  });
  afterEach(async () => {
    await Promise.all([db?.close(), unprepared?.close()]);
  });
  afterAll(() => dropSchema(schema));

  it('prepares a text from its second run, never one run once, and answers the same', async () => {
    const once = await sql<{ id: number }>`select id from balances where credits > ${50}`.execute(db.kysely);
    const answers = [];
    for (let i = 0; i < 3; i++)
      answers.push(
        (await sql<{ credits: number }>`select credits from balances where id = ${2}`.execute(db.kysely)).rows,
      );
    expect(once.rows).toEqual([{ id: 1 }]);
    expect(answers).toEqual([[{ credits: 5 }], [{ credits: 5 }], [{ credits: 5 }]]);
    const statements = await prepared(db);
    expect(statements).toContain('select credits from balances where id = $1');
    expect(statements.some((s) => s.includes('credits > $1'))).toBe(false);
  });

  it('runs select * unnamed, so that a column added meanwhile is read', async () => {
    for (let i = 0; i < 3; i++) await sql`select * from balances where id = ${1}`.execute(db.kysely);
    await sql`update balances set credits = ${7} where id = ${1} returning *`.execute(db.kysely);
    await sql`update balances set credits = ${7} where id = ${1} returning *`.execute(db.kysely);
    expect(await prepared(db)).toEqual([]);
    await sql`alter table balances add column note text default 'new'`.execute(db.kysely);
    const { rows } = await sql`select * from balances where id = ${1}`.execute(db.kysely);
    expect(rows).toEqual([{ id: 1, credits: 7, note: 'new' }]);
  });

  it('keeps a prepared statement working when its table changes, and runs it unnamed once its result type changed', async () => {
    const read = () => sql<{ credits: number }>`select credits from balances where id = ${1}`.execute(db.kysely);
    await read();
    await read();
    expect(await prepared(db)).toContain('select credits from balances where id = $1');
    await sql`alter table balances add column note text`.execute(db.kysely);
    expect((await read()).rows).toEqual([{ credits: 100 }]);
    // PostgreSQL refuses the prepared statement whose result type changed, once; then it runs unnamed.
    await sql`alter table balances alter column credits type text`.execute(db.kysely);
    await expect(read()).rejects.toMatchObject({ code: '0A000' });
    expect((await read()).rows).toEqual([{ credits: '100' }]);
    expect((await read()).rows).toEqual([{ credits: '100' }]);
  });

  it(`prepares ${MAX_PREPARED} statements per connection at most`, async () => {
    for (let n = 0; n < MAX_PREPARED + 40; n++)
      for (let run = 0; run < 2; run++)
        await sql`select credits + ${sql.lit(n)} as c from balances where id = ${1}`.execute(db.kysely);
    expect((await prepared(db)).length).toBe(MAX_PREPARED);
  });

  it('prepares nothing when turned off (PG_PREPARED_STATEMENTS=false)', async () => {
    for (let i = 0; i < 3; i++) await sql`select credits from balances where id = ${2}`.execute(unprepared.kysely);
    expect(await prepared(unprepared)).toEqual([]);
  });
});
