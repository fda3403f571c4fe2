import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../helpers/harness.js';
import { createOperator } from '../helpers/panel.js';
import { panelAction, panelPage, panelSignin } from '../helpers/panel-http.js';
import { listAudit } from '../../src/audit/service.js';
import { ledgerPage } from '../../src/accounts/index.js';

/** The operator view's "add credits" form takes a reason: kept in the credit ledger and the audit log. */
describeEngines('panel add credits with a reason', (engine) => {
  let h: Harness;
  let session: string;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
    await createOperator(h, 'caja@example.com', 'operator pass 1');
    session = (await panelSignin(h, 'caja@example.com', 'operator pass 1')).session!;
  });
  afterAll(() => h.close());

  it('shows the field, keeps the reason with the operator as actor, refuses a reason with control characters', async () => {
    const a = await h.createAccount(1);
    const page = await panelPage(h, session, '/panel/operator');
    expect(page.body).toContain(`id="reason-${a.id}"`);
    const add = (fields: Record<string, string>) =>
      panelAction(h, session, '/panel/operator', '/panel/operator/credits', { email: a.email, ...fields });
    expect((await add({ credits: '2', reason: 'transferencia 8841' })).status).toBe(303);
    expect((await add({ credits: '1' })).status).toBe(303);
    const refused = await add({ credits: '1', reason: 'dos\nlíneas' });
    expect(refused.status).toBe(400);
    expect(refused.body).toContain('El motivo es una sola línea');
    const { entries } = await ledgerPage(h.ctx.db.kysely, a.id, { page: 1 });
    expect(entries).toMatchObject([
      { kind: 'credit', amount: 1, balance_after: 4, reason: null, actor: 'panel:caja@example.com' },
      { kind: 'credit', amount: 2, balance_after: 3, reason: 'transferencia 8841', actor: 'panel:caja@example.com' },
    ]);
    const audit = await listAudit(h.ctx.db.kysely, { since: 0, actor: 'caja@example.com' });
    expect(audit.find((e) => e.detail.reason === 'transferencia 8841')).toMatchObject({ action: 'accounts.credits' });
  });
});
