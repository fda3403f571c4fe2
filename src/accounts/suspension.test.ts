import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness, type TestAccount } from '../../test/helpers/harness.js';
import { runCommands } from '../../test/helpers/cli.js';
import { createOperator, withPassword } from '../../test/helpers/panel.js';
import { panelAction, panelPage, panelSignin } from '../../test/helpers/panel-http.js';
import { accountCommands } from '../features/accounts/cli.js';
import { dispatchCampaign } from '../messaging/dispatch.js';
import { formatLocal } from '../lib/time.js';
import { toUnits } from './credits.js';

/** One account of a family, with every way it can authenticate open. */
interface Member {
  email: string;
  password: string;
  apikey: string;
  token: string;
  session: string;
}

/**
 * Archiving an account stops its whole family at once: its sub-accounts'
 * API keys, /auth tokens, panel sessions and sign-in, and their scheduled
 * sends. Unarchiving is explicit, one account at a time.
 */
describeEngines('archiving an account suspends its sub-accounts', (engine) => {
  let h: Harness;
  let families = 0;
  const cli = (...args: string[]) => runCommands(h.ctx, [accountCommands], [...args, '--json']);

  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    await createOperator(h, 'operator@example.com', 'operator pass 1');
  });
  afterAll(() => h.close());

  async function open(email: string, password: string, apikey: string): Promise<Member> {
    const token = (await h.post('/auth', { apikey })).body.token as string;
    const { session } = await panelSignin(h, email, password);
    expect(token).toMatch(/^mnt_/);
    expect(session).toBeDefined();
    return { email, password, apikey, token, session: session! };
  }

  /** A parent with two funded sub-accounts, each signed in everywhere. */
  async function family(): Promise<{ parent: Member; subs: Member[] }> {
    const n = ++families;
    const owner: TestAccount = await withPassword(
      h,
      await h.createAccount(100, `parent${n}@example.com`),
      'parent pass 1',
    );
    const parent = await open(owner.email, 'parent pass 1', owner.apikey);
    const subs: Member[] = [];
    for (const i of [1, 2]) {
      const email = `branch${n}-${i}@example.com`;
      const added = await h.post('/manager/subaccount/add', { email, password: 'branch1' }, owner.apikey);
      expect(added.body.code).toBe('subaccount_01');
      expect(
        (await h.post('/manager/subaccount/credits/manage', { email, type: 1, credits: 10 }, owner.apikey)).body.code,
      ).toBe('subaccount_01');
      subs.push(await open(email, 'branch1', added.body.apikey));
    }
    return { parent, subs };
  }

  async function expectWorking(m: Member) {
    expect((await h.post('/credits/consult', {}, m.apikey)).status).toBe(200);
    expect((await h.request('POST', '/credits/consult', { headers: { token: m.token } })).status).toBe(200);
    expect((await panelPage(h, m.session, '/panel/overview')).status).toBe(200);
  }

  async function expectStopped(m: Member) {
    const send = await h.post('/sms/send', { numbers: '5512345678', message: 'hola' }, m.apikey);
    expect(send).toMatchObject({ status: 401, body: { code: 'auth_05' } });
    expect(await h.post('/credits/consult', {}, m.apikey)).toMatchObject({ status: 401, body: { code: 'auth_05' } });
    expect((await h.post('/auth', { apikey: m.apikey })).status).toBe(401);
    expect((await h.request('POST', '/credits/consult', { headers: { token: m.token } })).status).toBe(401);
    const page = await panelPage(h, m.session, '/panel/overview');
    expect(page.status).toBe(303);
    expect(page.headers.location).toBe('/panel/');
    const signin = await panelSignin(h, m.email, m.password);
    expect(signin.reply.status).toBe(401);
    expect(signin.session).toBeUndefined();
  }

  it('archived with the CLI, the parent and every sub-account stop; unarchiving is one account at a time', async () => {
    const { parent, subs } = await family();
    for (const m of [parent, ...subs]) await expectWorking(m);
    expect((await h.post('/sms/send', { numbers: '5512345678', message: 'hola' }, subs[0].apikey)).status).toBe(200);

    expect(await cli('accounts', 'archive', '--email', parent.email)).toMatchObject({
      email: parent.email,
      status: 'archived',
      subaccounts_archived: 2,
    });
    for (const m of [parent, ...subs]) await expectStopped(m);

    const early = await cli('accounts', 'unarchive', '--email', subs[0].email, '--parent', parent.email);
    expect(early.error).toMatch(/unarchive its parent first/);
    const revived = await cli('accounts', 'unarchive', '--email', parent.email);
    expect(revived).toMatchObject({ email: parent.email, status: 'active' });
    // The old key was revoked with the archive: a new one is issued, shown once.
    expect((await h.post('/credits/consult', {}, revived.apikey)).status).toBe(200);
    expect((await h.post('/credits/consult', {}, parent.apikey)).status).toBe(401);
    expect((await panelSignin(h, parent.email, parent.password)).session).toBeDefined();
    for (const m of subs) await expectStopped(m);

    const sub = await cli('accounts', 'unarchive', '--email', subs[0].email, '--parent', parent.email);
    expect(sub).toMatchObject({ email: subs[0].email, status: 'active' });
    expect((await h.post('/credits/consult', {}, sub.apikey)).body.credit).toBeGreaterThan(0);
    expect((await panelSignin(h, subs[0].email, subs[0].password)).session).toBeDefined();
    await expectStopped(subs[1]);
  });

  it('archived from the operator panel, the whole family stops', async () => {
    const { parent, subs } = await family();
    const { session } = await panelSignin(h, 'operator@example.com', 'operator pass 1');
    const archived = await panelAction(h, session!, '/panel/operator', '/panel/operator/archive', {
      email: parent.email,
    });
    expect(archived.status).toBe(303);
    for (const m of [parent, ...subs]) await expectStopped(m);
  });

  it('a sub-account is refused when only its parent is archived, whoever archived it', async () => {
    const { parent, subs } = await family();
    await h.ctx.db.kysely
      .updateTable('accounts')
      .set({ status: 'archived' })
      .where('email', '=', parent.email)
      .execute();
    for (const m of subs) await expectStopped(m);
  });

  it("a sub-account's scheduled send does not go out once its parent is archived: it is closed and refunded", async () => {
    const { parent, subs } = await family();
    const date = formatLocal(Date.now() + 86_400_000);
    expect((await h.post('/sms/send', { numbers: '5512345678', message: 'luego', date }, subs[0].apikey)).status).toBe(
      200,
    );
    const sub = await h.ctx.db.kysely
      .selectFrom('accounts')
      .select(['id', 'credits'])
      .where('email', 'like', `% ${subs[0].email}`)
      .executeTakeFirstOrThrow();
    const message = await h.ctx.db.kysely
      .selectFrom('messages')
      .select(['id', 'campaign_id', 'status'])
      .where('account_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    expect(message.status).toBe('scheduled');

    await cli('accounts', 'archive', '--email', parent.email);
    await dispatchCampaign(h.ctx, message.campaign_id);
    const after = await h.ctx.db.kysely
      .selectFrom('messages')
      .select(['status', 'stage', 'error'])
      .where('id', '=', message.id)
      .executeTakeFirstOrThrow();
    expect(after).toMatchObject({ status: 'refused', stage: 2 });
    expect(after.error).toMatch(/archived/);
    const refunded = await h.ctx.db.kysely
      .selectFrom('accounts')
      .select('credits')
      .where('id', '=', sub.id)
      .executeTakeFirstOrThrow();
    expect(refunded.credits).toBe(toUnits(10));
  });

  it('a sub-account its parent archives through the API still sends what it had accepted, as documented', async () => {
    const { parent, subs } = await family();
    const date = formatLocal(Date.now() + 86_400_000);
    expect((await h.post('/sms/send', { numbers: '5512345678', message: 'luego', date }, subs[0].apikey)).status).toBe(
      200,
    );
    const owner = await h.ctx.db.kysely
      .selectFrom('accounts')
      .select('id')
      .where('email', '=', parent.email)
      .executeTakeFirstOrThrow();
    const sub = await h.ctx.db.kysely
      .selectFrom('accounts')
      .select('id')
      .where('email', '=', `${owner.id} ${subs[0].email}`)
      .executeTakeFirstOrThrow();
    const message = await h.ctx.db.kysely
      .selectFrom('messages')
      .select(['id', 'campaign_id'])
      .where('account_id', '=', sub.id)
      .executeTakeFirstOrThrow();
    expect((await h.post('/manager/subaccount/archive', { email: subs[0].email }, parent.apikey)).body.code).toBe(
      'subaccount_01',
    );
    await expectStopped(subs[0]);
    await dispatchCampaign(h.ctx, message.campaign_id);
    expect(
      await h.ctx.db.kysely
        .selectFrom('messages')
        .select('status')
        .where('id', '=', message.id)
        .executeTakeFirstOrThrow(),
    ).toEqual({ status: 'sent' });
  });
});
