import { resolve } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { describeEngines, engines, eventually, type EngineName } from '../helpers/harness.js';
import { cliEnv, runMensajero, startServe } from '../helpers/cli.js';
import { openDatabase } from '../../src/db/engine.js';
import { chaosScale } from './scale.js';
import { startRecordingCarrier, startWebhookReceiver } from './peers.js';

const CARRIER_BATCH = 50;
const WORKER_CONCURRENCY = 4;

/**
 * kill -9 of `mensajero serve` in the middle of a campaign of thousands of
 * messages; then a restart (or, with two
 * processes on PostgreSQL, the survivor carries on). Afterwards every accepted
 * message went to the carrier, was charged once and was confirmed at least
 * once; a message went to the carrier twice only if it was in flight (claimed
 * with its outcome unrecorded) at the instant of the kill.
 */
async function campaignThroughKill(engine: EngineName, processes: 1 | 2, perRequest: 500 | 1 = 500) {
  // Single-recipient sends go through the inline dispatch, with no dispatch job: the unsent sweep is their safety net.
  const singles = perRequest === 1;
  const total = singles ? 300 : chaosScale(600, 10000);
  const carrier = await startRecordingCarrier(10);
  const hooks = await startWebhookReceiver();
  const cli = await cliEnv(
    engine,
    {
      CARRIER_MODULE: resolve(import.meta.dirname, 'carrier.mjs'),
      CHAOS_CARRIER_URL: carrier.url,
      // Slower for single sends, so that many are still unsent when every request has been answered.
      CHAOS_CARRIER_MPS: singles ? '200' : '2000',
      CHAOS_CARRIER_BATCH: String(CARRIER_BATCH),
      WORKER_CONCURRENCY: String(WORKER_CONCURRENCY),
      WORKER_POLL_MS: '20',
      JOB_LEASE_MS: '2000',
      SIMULATOR_DLR_DELAY_MS: '20',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '200',
      WEBHOOK_HOST_CONCURRENCY: '32',
      RATE_LIMIT_PER_SECOND: '1000',
    },
    { migrated: true },
  );
  const children: ChildProcess[] = [];
  const db = await openDatabase(cli.env.DATABASE_URL);
  try {
    const created = await runMensajero(
      [
        'accounts',
        'create',
        '--email',
        'chaos@example.com',
        '--password',
        'chaos-password-1',
        '--credits',
        String(total * 2),
        '--json',
      ],
      cli.env,
    );
    expect(created.code, created.stderr).toBe(0);
    const { apikey, id: accountId } = created.json;
    const first = await startServe(cli.env);
    children.push(first.child);
    const second = processes === 2 ? await startServe(cli.env) : null;
    if (second) children.push(second.child);
    const post = async (base: string, path: string, body: unknown) => {
      const r = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: { apikey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return r.json() as Promise<any>;
    };
    expect((await post(first.base, '/webhook/add', { url: hooks.url, status: '1' })).code).toBe('add_webhook_01');

    const references: string[] = [];
    for (let i = 0; singles && i < total; i += 20) {
      const replies = await Promise.all(
        Array.from({ length: Math.min(20, total - i) }, (_, k) =>
          post(first.base, '/sms/send', { numbers: String(5510000000 + i + k), message: 'Hola' }),
        ),
      );
      for (const r of replies) {
        expect(r.code).toBe('sms_11');
        references.push(...r.references.map((x: { reference: string }) => x.reference));
      }
    }
    for (let i = 0; !singles && i < total; i += 500) {
      const numbers = Array.from({ length: Math.min(500, total - i) }, (_, k) => String(5510000000 + i + k)).join(',');
      const base = second && (i / 500) % 2 === 1 ? second.base : first.base;
      const r = await post(base, '/sms/send', { numbers, message: 'Hola' });
      expect(r.code).toBe('sms_11');
      references.push(...r.references.map((x: { reference: string }) => x.reference));
    }
    if (!singles) await eventually(async () => carrier.handOffs.size >= total / 4, 60_000, 5);
    const killedAt = Date.now();
    first.child.kill('SIGKILL');
    await first.exited;
    const handedAtKill = carrier.handOffs.size;
    // What the database says was in flight at the kill: claimed, outcome unrecorded (single sends are
    // inserted claimed, so of those only what the carrier had seen).
    const inFlight = new Set(
      (
        await db.kysely
          .selectFrom('messages')
          .select('id')
          .where('stage', '=', 0)
          .where('claim_token', 'is not', null)
          .execute()
      )
        .map((m) => m.id)
        .filter((id) => !singles || carrier.handOffs.has(id)),
    );
    const unsentAtKill = singles
      ? (await db.kysely.selectFrom('messages').select('id').where('stage', '=', 0).execute()).length
      : undefined;

    const restarted = second ? null : await startServe(cli.env);
    if (restarted) children.push(restarted.child);
    await eventually(
      async () => (await db.kysely.selectFrom('messages').select('id').where('stage', '<', 2).execute()).length === 0,
      500_000,
      200,
    );
    await eventually(async () => references.every((r) => hooks.references.has(r)), 500_000, 200);

    const messages = await db.kysely
      .selectFrom('messages')
      .select(['id', 'price_units', 'status'])
      .where('account_id', '=', accountId)
      .execute();
    const account = await db.kysely
      .selectFrom('accounts')
      .select('credits')
      .where('id', '=', accountId)
      .executeTakeFirstOrThrow();
    const repeated = carrier.repeated();
    const figures = {
      engine,
      processes,
      total,
      handedAtKill,
      unsentAtKill,
      inFlightAtKill: inFlight.size,
      repeated: repeated.length,
    };
    console.info('chaos kill -9', JSON.stringify(figures));

    expect(messages).toHaveLength(total);
    expect(messages.every((m) => m.status === 'delivered')).toBe(true);
    // Every message reached the carrier; a repeat only for what was in flight at the kill.
    expect(carrier.handOffs.size).toBe(total);
    const outside = repeated.filter((id) => !inFlight.has(id));
    if (outside.length > 0) {
      // What a failure needs to be understood: when each repeated batch arrived, from which process, and that process's warnings.
      const batches = carrier.batches
        .filter((b) => b.ids.some((id) => outside.includes(id)))
        .map((b) => ({ msAfterKill: b.at - killedAt, pid: b.pid, first: b.ids[0], n: b.ids.length }));
      const warnings = (restarted ?? second)
        ?.output()
        .split('\n')
        .filter((l) => /"level":[456]/.test(l))
        .slice(0, 8);
      console.info(
        'repeated outside the in-flight set',
        JSON.stringify({ outside: outside.length, batches, warnings }),
      );
    }
    expect(outside).toEqual([]);
    // Each process's dispatch jobs, plus the batch its inline hand-off was submitting.
    expect(inFlight.size).toBeLessThanOrEqual(CARRIER_BATCH * (WORKER_CONCURRENCY + 1) * processes);
    // Charged once: the balance is what it was less the price of each message, once.
    const charged = messages.reduce((sum, m) => sum + m.price_units, 0);
    expect(account.credits).toBe(total * 2 * 10_000 - charged);
    expect(references.every((r) => hooks.references.has(r))).toBe(true);
  } finally {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await db.close();
    await hooks.stop().catch(() => undefined);
    await carrier.stop();
    await cli.cleanup();
  }
}

describeEngines('chaos: kill -9 mid-campaign', (engine) => {
  it(
    'delivers every accepted message once after a restart, charged once, confirmed',
    () => campaignThroughKill(engine, 1),
    600_000,
  );
  it(
    'delivers every accepted single send once after a restart, with no dispatch job behind it',
    () => campaignThroughKill(engine, 1, 1),
    600_000,
  );
});

if (engines.includes('postgres')) {
  describe('chaos: two processes on PostgreSQL, one killed [postgres]', () => {
    it(
      'the survivor finishes the campaign; nothing lost, nothing charged twice',
      () => campaignThroughKill('postgres', 2),
      600_000,
    );
  });
}
