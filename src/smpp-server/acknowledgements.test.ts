import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, type Harness } from '../../test/helpers/harness.js';
import { bindClient, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import type { Pdu } from '../smpp-protocol/pdu.js';

/** A receipt row as the SMS pipeline queues it; `claim` as a process left it (its holder and lease). */
function receiptRow(accountId: number, id: string, claim: { by: string; until: number } | null = null) {
  const now = Date.now();
  return {
    account_id: accountId,
    kind: 'receipt' as const,
    notice: JSON.stringify({
      message_id: id,
      number: '525512345678',
      address: 'ACME',
      text: 'x',
      submitted_at: now,
      done_at: now,
      code: 0,
    }),
    created_at: now,
    next_at: now,
    attempts: claim ? 1 : 0,
    claimed_by: claim?.by ?? null,
    claimed_until: claim?.until ?? null,
  };
}

describeEngines('SMPP server: acknowledged receipts are deleted in batches, the others kept', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine);
  });
  afterAll(() => h.close());

  const waiting = async (accountId: number) =>
    (
      await h.ctx.db.kysely
        .selectFrom('smpp_deliveries')
        .select(['notice'])
        .where('account_id', '=', accountId)
        .execute()
    )
      .map((r) => (JSON.parse(r.notice) as { message_id: string }).message_id)
      .sort();

  it('deletes exactly the rows the customer acknowledged with 0 and keeps the refused ones', async () => {
    const c = await smppCustomer(h, 100, { window: 50 });
    const ids = Array.from({ length: 40 }, (_, i) => `r${String(i).padStart(2, '0')}`);
    await h.ctx.db.kysely
      .insertInto('smpp_deliveries')
      .values(ids.map((id) => receiptRow(c.id, id)))
      .execute();
    const answered = new Map<string, number>();
    await bindClient(h.smppPort, c.systemId, c.password, 'receiver', (s) =>
      s.on('deliver_sm', (p: Pdu) => {
        const id = String(p.receipted_message_id);
        // Every third one is refused every time (a customer that cannot store it yet): it must stay.
        const status = Number(id.slice(1)) % 3 === 0 ? 0x08 : 0;
        if (!answered.has(id)) answered.set(id, status);
        s.send(p.response({ command_status: status }));
      }),
    );
    const refused = ids.filter((id) => Number(id.slice(1)) % 3 === 0);
    await eventually(async () => answered.size === ids.length, 15_000);
    await eventually(async () => JSON.stringify(await waiting(c.id)) === JSON.stringify(refused), 15_000);
    expect(await h.ctx.metrics.render()).toMatch(
      new RegExp(
        `mensajero_smpp_server_delivered_total\\{system_id="${c.systemId}",kind="receipt"\\} ${ids.length - refused.length}\\b`,
      ),
    );
  });

  it('sends again, once its claim lapses, what a killed process had sent and seen acknowledged but not yet deleted', async () => {
    const c = await smppCustomer(h);
    // The state a process killed between the deliver_sm_resp and its delete leaves: claimed by it, not deleted.
    const lapse = Date.now() + 1500;
    await h.ctx.db.kysely
      .insertInto('smpp_deliveries')
      .values([receiptRow(c.id, 'orphan', { by: 'killed-host:1:abc', until: lapse })])
      .execute();
    const got: Array<{ id: string; at: number }> = [];
    await bindClient(h.smppPort, c.systemId, c.password, 'receiver', (s) =>
      s.on('deliver_sm', (p: Pdu) => {
        got.push({ id: String(p.receipted_message_id), at: Date.now() });
        s.send(p.response());
      }),
    );
    await eventually(async () => got.length === 1, 15_000);
    expect(got[0].id).toBe('orphan');
    expect(got[0].at).toBeGreaterThanOrEqual(lapse);
    await eventually(async () => (await waiting(c.id)).length === 0);
  });

  it('keeps acknowledged rows claimed until their delete, so a second round never sends them again', async () => {
    const c = await smppCustomer(h, 100, { window: 10 });
    const ids = Array.from({ length: 30 }, (_, i) => `d${i}`);
    await h.ctx.db.kysely
      .insertInto('smpp_deliveries')
      .values(ids.map((id) => receiptRow(c.id, id)))
      .execute();
    const got: string[] = [];
    await bindClient(h.smppPort, c.systemId, c.password, 'receiver', (s) =>
      s.on('deliver_sm', (p: Pdu) => {
        got.push(String(p.receipted_message_id));
        s.send(p.response());
        // Rounds run as often as they can while the acknowledgements are being deleted.
        void h.smpp!.server.pump.tick();
      }),
    );
    await eventually(async () => (await waiting(c.id)).length === 0, 15_000);
    await h.smpp!.server.pump.settled();
    expect(got.sort()).toEqual([...ids].sort());
  });
});
