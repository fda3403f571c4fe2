import Database from 'better-sqlite3';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { keyLookup } from './key-lookup.js';
import { watchQueries } from '../../test/helpers/queries.js';

/**
 * A key's caller is never older than the database, whoever changed it: here
 * a second connection (as the CLI in another process would) writes between
 * requests of a key the server has just used.
 */
describeEngines('API key lookup stays current', (engine) => {
  let h: Harness;
  let other: (statement: string) => Promise<void>;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    if (engine === 'sqlite') {
      const connection = new Database(h.config.DATABASE_URL.slice('sqlite:'.length));
      other = async (statement) => void connection.prepare(statement).run();
    } else {
      other = async (statement) => void (await sql.raw(statement).execute(h.ctx.db.kysely));
    }
  });
  afterAll(() => h.close());
  const consult = (apikey: string) => h.post('/credits/consult', {}, apikey);

  it('shows a balance changed by another connection on the next request', async () => {
    const a = await h.createAccount(5);
    expect((await consult(a.apikey)).body.credit).toBe(5);
    expect((await consult(a.apikey)).body.credit).toBe(5);
    await other(`UPDATE accounts SET credits = credits + 20000 WHERE id = ${a.id}`);
    expect((await consult(a.apikey)).body.credit).toBe(7);
  });

  it('refuses a key revoked by another connection on the next request', async () => {
    const a = await h.createAccount(1);
    expect((await consult(a.apikey)).status).toBe(200);
    await other(`UPDATE api_keys SET revoked_at = 1 WHERE account_id = ${a.id}`);
    expect((await consult(a.apikey)).status).toBe(401);
  });

  it('refuses the key of an account archived by another connection on the next request', async () => {
    const a = await h.createAccount(1);
    expect((await consult(a.apikey)).status).toBe(200);
    await other(`UPDATE accounts SET status = 'archived' WHERE id = ${a.id}`);
    expect((await consult(a.apikey)).status).toBe(401);
  });

  it("refuses a sub-account's key on the next request once another connection archives its parent", async () => {
    const parent = await h.createAccount(1);
    const sub = await h.post(
      '/manager/subaccount/add',
      { email: `sub-${parent.id}@example.com`, password: 'branch1' },
      parent.apikey,
    );
    expect((await consult(sub.body.apikey)).status).toBe(200);
    expect((await consult(sub.body.apikey)).status).toBe(200);
    await other(`UPDATE accounts SET status = 'archived' WHERE id = ${parent.id}`);
    expect((await consult(sub.body.apikey)).status).toBe(401);
  });

  it('answers the keys of requests that arrive together, each with its own caller (one query on PostgreSQL)', async () => {
    const accounts = [await h.createAccount(1), await h.createAccount(2), await h.createAccount(3)];
    const lookup = keyLookup(h.ctx.db);
    let queries = 0;
    const keys = [...accounts.map((a) => a.apikey), 'mns_not-a-key', ...accounts.map((a) => a.apikey)];
    const found = await watchQueries(
      h.ctx.db.kysely,
      (sql) => void (/"api_keys"/.test(sql) && queries++),
      () => Promise.all(keys.map((k) => lookup(k))),
    );
    expect(found.map((a) => a?.id)).toEqual([...accounts.map((a) => a.id), undefined, ...accounts.map((a) => a.id)]);
    expect(found.map((a) => (a ? Number(a.credits) : null))).toEqual([
      10_000,
      20_000,
      30_000,
      null,
      10_000,
      20_000,
      30_000,
    ]);
    if (engine === 'postgres') expect(queries).toBe(1);
    // The next turn reads again: a key revoked meanwhile is refused.
    await other(`UPDATE api_keys SET revoked_at = 1 WHERE account_id = ${accounts[0].id}`);
    expect(await lookup(accounts[0].apikey)).toBeUndefined();
  });
});
