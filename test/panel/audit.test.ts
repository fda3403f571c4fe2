import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../helpers/harness.js';
import { createOperator } from '../helpers/panel.js';
import { panelAction, panelPage, panelSignin } from '../helpers/panel-http.js';
import { listAudit, recordAudit } from '../../src/audit/service.js';

/** The operator view's changes are recorded as panel:EMAIL, and its Audit log page lists every entry. */
describeEngines('panel audit log', (engine) => {
  let h: Harness;
  let session: string;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    await createOperator(h, 'ops@example.com', 'operator pass 1');
    session = (await panelSignin(h, 'ops@example.com', 'operator pass 1')).session!;
  });
  afterAll(() => h.close());

  it("records the operator view's changes with the operator's email and address, never the password", async () => {
    const created = await panelAction(h, session, '/panel/operator', '/panel/operator/create', {
      email: 'new@example.com',
      password: 'a long password 1',
      credits: '4',
    });
    expect(created.status).toBe(303);
    const a = await h.createAccount(1);
    expect(
      (await panelAction(h, session, '/panel/operator', '/panel/operator/credits', { email: a.email, credits: '2' }))
        .status,
    ).toBe(303);
    // A refused change is not recorded.
    await panelAction(h, session, '/panel/operator', '/panel/operator/credits', { email: a.email, credits: '-5' });
    // Past the balance ceiling (100,000,000 credits): refused, nothing added, nothing recorded.
    const balance = () =>
      h.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', a.id).executeTakeFirstOrThrow();
    const before = await balance();
    const ceiling = await panelAction(h, session, '/panel/operator', '/panel/operator/credits', {
      email: a.email,
      credits: '100000000',
    });
    expect(ceiling.status).toBe(400);
    expect(await balance()).toEqual(before);
    const entries = await listAudit(h.ctx.db.kysely, { since: 0, actor: 'ops@example.com' });
    expect(entries.map((e) => e.action)).toEqual(['accounts.credits', 'accounts.create']);
    expect(entries[0]).toMatchObject({
      actor: 'panel:ops@example.com',
      target: a.email,
      detail: { email: a.email, credits: '2' },
      address: '127.0.0.1',
    });
    expect(JSON.stringify(entries)).not.toMatch(/password|_csrf/);
  });

  it('lists the entries on the Audit log page, filtered by who, escaped', async () => {
    await recordAudit(h.ctx.db.kysely, { actor: 'token:deploy', action: 'accounts.archive', target: '<b>x</b>' });
    const page = await panelPage(h, session, '/panel/operator/audit');
    expect(page.status).toBe(200);
    expect(page.body).toContain('data-testid="audit"');
    expect(page.body).toContain('href="/panel/operator/audit"');
    expect(page.body).toContain('panel:ops@example.com');
    expect(page.body).toContain('&lt;b&gt;x&lt;/b&gt;');
    const filtered = await panelPage(h, session, '/panel/operator/audit?actor=deploy');
    expect(filtered.body).toContain('token:deploy');
    expect(filtered.body).not.toContain('panel:ops@example.com</td>');
  });

  it('is for operators only', async () => {
    expect((await h.request('GET', '/panel/operator/audit')).status).toBe(303);
  });
});
