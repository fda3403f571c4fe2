import { expect, it } from 'vitest';
import { type Kysely } from 'kysely';
import { describeEngines } from '../../../test/helpers/harness.js';
import { migrationSandbox } from '../../../test/helpers/migrations.js';
import { deliverSmOf } from '../../smpp-server/notices.js';
import type { CustomerNotice } from '../../messaging/customer-notices.js';
import { gsmSeptets } from '../../smpp-protocol/encoding.js';
import { migrations } from './index.js';

const MINE = '0048_customer_notices';
const BEFORE = Object.keys(migrations).sort()[Object.keys(migrations).sort().indexOf(MINE) - 1];

/**
 * Receipts and replies waiting at the upgrade were stored as rendered deliver_sm: after the migration each is a notice
 * that renders to the very deliver_sm the previous version would have sent.
 */
describeEngines('migration 0048: waiting receipts and replies become notices', (engine) => {
  const sandbox = migrationSandbox(engine);
  const any = () => sandbox.db.kysely as unknown as Kysely<any>;

  it('converts every waiting row exactly, and goes down and up again', async () => {
    expect((await sandbox.migrator.migrateTo(BEFORE)).error).toBeUndefined();
    const [{ id: accountId }] = await any()
      .insertInto('accounts')
      .values({ email: 'a@example.com', password_hash: 'x', created_at: 1 })
      .returning('id')
      .execute();
    // As the previous version wrote them: a receipt (text of Appendix B, Mexico City minutes), replies in GSM-7 and UCS-2.
    const receipt = {
      source_addr: '525512345678',
      destination_addr: 'ACME',
      esm_class: 4,
      data_coding: 0,
      text: 'id:0190aa sub:001 dlvrd:000 submit date:2612011759 done date:2612020004 stat:REJECTD err:010 text:Hola ?? caf? y m?s t',
      receipted_message_id: '0190aa',
      message_state: 8,
    };
    const replies = [
      { source_addr: '525511112222', destination_addr: '55123', esm_class: 0, data_coding: 0, text: 'STOP {x}' },
      { source_addr: '525511112222', destination_addr: 'ACME', esm_class: 0, data_coding: 8, text: 'Gracias 😀' },
    ];
    const row = (kind: string, pdu: object) => ({
      account_id: accountId,
      kind,
      pdu: JSON.stringify(pdu),
      created_at: 1,
      next_at: 1,
      attempts: 0,
      claimed_by: null,
      claimed_until: null,
    });
    await any()
      .insertInto('smpp_deliveries')
      .values([row('receipt', receipt), ...replies.map((r) => row('reply', r))])
      .execute();

    expect((await sandbox.migrator.migrateTo(MINE)).error).toBeUndefined();
    const rows = await any().selectFrom('smpp_deliveries').select(['kind', 'notice']).orderBy('id').execute();
    const rendered = rows.map((r: { kind: string; notice: string }) =>
      deliverSmOf({ kind: r.kind, notice: JSON.parse(r.notice) } as CustomerNotice),
    );
    expect(rendered[0]).toMatchObject({
      source_addr: receipt.source_addr,
      destination_addr: 'ACME',
      esm_class: 4,
      data_coding: 0,
      short_message: Buffer.from(receipt.text, 'latin1'),
      receipted_message_id: '0190aa',
      message_state: 8,
    });
    expect(rendered[1]).toMatchObject({
      destination_addr: '55123',
      dest_addr_ton: 1,
      data_coding: 0,
      short_message: Buffer.from(gsmSeptets('STOP {x}')),
    });
    expect(rendered[2]).toMatchObject({
      destination_addr: 'ACME',
      dest_addr_ton: 5,
      data_coding: 8,
      short_message: Buffer.from('Gracias 😀', 'utf16le').swap16(),
    });

    const down = await sandbox.migrator.migrateTo(BEFORE);
    expect(down.error).toBeUndefined();
    expect(await any().selectFrom('smpp_deliveries').select('pdu').execute()).toEqual([]);
    expect((await sandbox.migrator.migrateTo(MINE)).error).toBeUndefined();
  });
});
