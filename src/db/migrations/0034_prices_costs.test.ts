import { expect, it } from 'vitest';
import { type Kysely } from 'kysely';
import { describeEngines } from '../../../test/helpers/harness.js';
import { migrationSandbox } from '../../../test/helpers/migrations.js';
import { migrations } from './index.js';

const MINE = '0034_prices_costs';
/** The migration before this one, whatever its number after a merge. */
const BEFORE = Object.keys(migrations).sort()[Object.keys(migrations).sort().indexOf(MINE) - 1];

/** Messages refunded before the migration count as refunded after it (margins), and the migration goes back down. */
describeEngines('migration 0034: prices, carrier costs and the charge of each message', (engine) => {
  const sandbox = migrationSandbox(engine);
  const any = () => sandbox.db.kysely as unknown as Kysely<any>;

  it('marks the messages closed unsent as refunded, and goes down and up again', async () => {
    expect((await sandbox.migrator.migrateTo(BEFORE)).error).toBeUndefined();
    const [{ id: accountId }] = await any()
      .insertInto('accounts')
      .values({ email: 'a@example.com', password_hash: 'x', created_at: 1 })
      .returning('id')
      .execute();
    const [{ id: campaignId }] = await any()
      .insertInto('campaigns')
      .values({ account_id: accountId, name: 'c', channel: 'sms', source: 'sms', sandbox: 0, total: 3, created_at: 1 })
      .returning('id')
      .execute();
    const message = (reference: string, status: string, sentAt: number | null) => ({
      account_id: accountId,
      campaign_id: campaignId,
      reference,
      channel: 'sms',
      country_code: '52',
      number: '525512345678',
      text: 'Hola',
      flash: 0,
      sandbox: 0,
      price_units: 10_000,
      stage: 2,
      status,
      created_at: 1,
      sent_at: sentAt,
    });
    await any()
      .insertInto('messages')
      .values([
        message('refused', 'refused', null),
        message('undelivered', 'undelivered', 5),
        message('ok', 'delivered', 5),
      ])
      .execute();
    expect((await sandbox.migrator.migrateToLatest()).error).toBeUndefined();
    const rows = await sandbox.db.kysely
      .selectFrom('messages')
      .select(['reference', 'refunded'])
      .orderBy('reference')
      .execute();
    expect(rows.map((r) => [r.reference, Number(r.refunded)])).toEqual([
      ['ok', 0],
      ['refused', 1],
      ['undelivered', 0],
    ]);
    expect(
      (await sandbox.db.kysely.selectFrom('rate_revisions').select('name').orderBy('name').execute()).map(
        (r) => r.name,
      ),
    ).toEqual(expect.arrayContaining(['costs', 'prices']));
    expect((await sandbox.migrator.migrateTo(BEFORE)).error).toBeUndefined();
    expect((await sandbox.migrator.migrateToLatest()).error).toBeUndefined();
  });
});
