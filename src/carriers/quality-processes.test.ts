import pino from 'pino';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { engines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { SMPP_ENV } from '../../test/helpers/smpp-suite.js';
import { startService } from '../app/serve.js';

type Service = Awaited<ReturnType<typeof startService>>;

// Two services on one PostgreSQL schema, each with its own pool, carrier upkeep and metrics: the quality state is the database's.
describe.skipIf(!engines.includes('postgres'))('quality state shared by two services [postgres]', () => {
  let h: Harness;
  let other: Service;
  beforeAll(async () => {
    h = await startHarness('postgres', { env: SMPP_ENV });
    const { rows } = await sql<{ search_path: string }>`show search_path`.execute(h.ctx.db.kysely);
    other = await startService(h.config, {
      pgSchema: rows[0].search_path,
      listen: false,
      log: pino({ level: 'silent' }),
    });
  });
  afterAll(async () => {
    await other?.stop();
    await h?.close();
  });

  const changes = async (change: string) => {
    let total = 0;
    for (const app of [h.app, other.app]) {
      const text = (await app.inject({ method: 'GET', url: '/metrics' })).body;
      const m = new RegExp(
        `mensajero_carrier_quality_changes_total\\{carrier="shared",change="${change}"\\} (\\d+)`,
      ).exec(text);
      total += m ? Number(m[1]) : 0;
    }
    return total;
  };

  it('both services see a demotion and a recovery that exactly one of them made', async () => {
    const now = Date.now();
    await h.ctx.db.kysely
      .insertInto('carrier_receipt_counts')
      .values({ carrier: 'shared', bucket: now - (now % 10_000), delivered: 1, failed: 9 })
      .execute();
    await h.ctx.db.kysely
      .insertInto('carrier_quality')
      .values({ carrier: 'shared', min_delivery_rate: 5000, window_minutes: 10, min_messages: 10 })
      .execute();
    await eventually(
      async () => h.ctx.carriers.manager.demoted.has('shared') && other.ctx.carriers.manager.demoted.has('shared'),
    );
    expect(await changes('demoted')).toBe(1);

    await h.ctx.db.kysely
      .updateTable('carrier_quality')
      .set({ min_delivery_rate: null })
      .where('carrier', '=', 'shared')
      .execute();
    await eventually(
      async () => !h.ctx.carriers.manager.demoted.has('shared') && !other.ctx.carriers.manager.demoted.has('shared'),
    );
    expect(await changes('recovered')).toBe(1);
    expect(await changes('demoted')).toBe(1);
  });
});
