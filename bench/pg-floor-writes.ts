import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { timeOrderedId } from '../src/lib/ids.js';

/**
 * The durable writes of Mensajero's message life cycle, issued by raw
 * node-postgres with nothing else around them: the floor the service is
 * compared with. Same tables, rows, indexes and transactions as the write
 * budget shows; no reads that do not write, no validation, no event loop work.
 */

const MESSAGE_COLS = ['account_id', 'campaign_id', 'reference', 'channel', 'country_code', 'number', 'text'];
/** A single send's message is inserted already claimed by the process that hands it over (no claim update later). */
const CLAIMED_MESSAGE_INSERT = `INSERT INTO messages (${MESSAGE_COLS.join(', ')}, price_units, stage, status, created_at, credit_value,
  claimed_until, claim_token)
  VALUES ($1, $2, $3, 'sms', '52', $4, $5, 10000, 0, 'queued', $6, 10000, $7, $8) RETURNING id`;

/**
 * Accepts requests of one recipient each in one transaction (a group commit):
 * debit, campaign, message inserted claimed. No dispatch job: the unsent
 * sweep is a small send's safety net.
 */
export async function acceptSingles(pool: pg.Pool, accountId: number, numbers: string[]): Promise<Accepted[]> {
  const client = await pool.connect();
  const accepted: Accepted[] = [];
  try {
    await client.query('BEGIN');
    for (const number of numbers) {
      const now = Date.now();
      await client.query('UPDATE accounts SET credits = credits - $1 WHERE id = $2 AND credits >= $1', [
        10_000,
        accountId,
      ]);
      const campaign = await client.query(
        `INSERT INTO campaigns (account_id, name, channel, source, sandbox, total, created_at)
         VALUES ($1, 'SMS', 'sms', 'sms', 0, 1, $2) RETURNING id`,
        [accountId, now],
      );
      const campaignId = Number(campaign.rows[0].id);
      const message = await client.query(CLAIMED_MESSAGE_INSERT, [
        accountId,
        campaignId,
        timeOrderedId(),
        number,
        'Hola',
        now,
        now + 60_000,
        CLAIM_TOKEN,
      ]);
      accepted.push({ campaignId, messageId: Number(message.rows[0].id) });
    }
    await client.query('COMMIT');
    return accepted;
  } finally {
    client.release();
  }
}

export interface Accepted {
  campaignId: number;
  messageId: number;
}

/** A campaign of many recipients in one transaction (not timed by the drain floor): debit, campaign, messages, job. */
export async function acceptCampaign(pool: pg.Pool, accountId: number, numbers: string[]): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const now = Date.now();
    await client.query('UPDATE accounts SET credits = credits - $1 WHERE id = $2', [
      10_000 * numbers.length,
      accountId,
    ]);
    const campaign = await client.query(
      `INSERT INTO campaigns (account_id, name, channel, source, sandbox, total, created_at)
       VALUES ($1, 'SMS', 'sms', 'sms', 0, $2, $3) RETURNING id`,
      [accountId, numbers.length, now],
    );
    const campaignId = Number(campaign.rows[0].id);
    const values = numbers.map(
      (_, r) => `($1, $2, $${r * 2 + 4}, 'sms', '52', $${r * 2 + 5}, $3, 10000, 0, 'queued', ${now}, 10000)`,
    );
    const ids = await client.query(
      `INSERT INTO messages (${MESSAGE_COLS.join(', ')}, price_units, stage, status, created_at, credit_value)
       VALUES ${values.join(', ')} RETURNING id`,
      [accountId, campaignId, 'Hola', ...numbers.flatMap((n) => [timeOrderedId(), n])],
    );
    await client.query(
      `INSERT INTO jobs (kind, payload, run_at, max_attempts, created_at) VALUES ('messaging.dispatch', $1, $2, 20, $2)`,
      [JSON.stringify({ campaignId }), now],
    );
    await client.query('COMMIT');
    return ids.rows.map((r) => Number(r.id));
  } finally {
    client.release();
  }
}

const CLAIM_TOKEN = randomUUID();

/**
 * Hands messages over and applies their receipts, with the writes of the
 * service: the claim (unless they were inserted claimed), the simulator's
 * report job, the sent status, then the report job claimed, the final status
 * with the confirmation events and the receipt counts, and the job removed.
 */
export async function deliver(pool: pg.Pool, messageIds: number[], insertedClaimed = false): Promise<void> {
  const now = Date.now();
  const ids = insertedClaimed
    ? messageIds
    : (
        await pool.query(
          `UPDATE messages SET claimed_until = $2, claim_token = $3 WHERE id = ANY($1) AND stage = 0 RETURNING id`,
          [messageIds, now + 60_000, randomUUID()],
        )
      ).rows.map((r) => Number(r.id));
  const job = await pool.query(
    `INSERT INTO jobs (kind, payload, run_at, max_attempts, created_at) VALUES ('simulator.dlr', $1, $2, 20, $2) RETURNING id`,
    [JSON.stringify({ reports: ids.map((id) => [id, 0]) }), now],
  );
  await pool.query(
    `UPDATE messages SET stage = 1, status = 'sent', carrier = 'simulator', parts = 1, sent_at = $2 WHERE id = ANY($1) AND stage = 0`,
    [ids, now],
  );
  await applyReceipts(pool, Number(job.rows[0].id), ids);
}

async function applyReceipts(pool: pg.Pool, jobId: number, ids: number[]): Promise<void> {
  const at = Date.now();
  const token = randomUUID();
  await pool.query(
    'UPDATE jobs SET locked_until = $2, locked_by = $3, attempts = attempts + 1 WHERE id = $1 RETURNING *',
    [jobId, at + 60_000, token],
  );
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const applied = await client.query(
      `UPDATE messages AS m SET stage = 2, status = 'delivered', dlr_code = 0, dlr_at = $2, sent_at = COALESCE(m.sent_at, $2)
       FROM unnest($1::bigint[]) AS r(id) WHERE m.id = r.id AND m.stage < 2 AND m.sandbox = 0
       RETURNING m.id, m.account_id, m.reference, m.number, m.extra_params`,
      [ids, at],
    );
    const events = applied.rows.map((m) => [
      m.account_id,
      m.reference,
      JSON.stringify({ type: 'confirmation', reference: m.reference, status: '0', number: m.number, extra_params: '' }),
      `msg_${timeOrderedId()}`,
    ]);
    for (let i = 0; i < events.length; i += 500) {
      const slice = events.slice(i, i + 500);
      await client.query(
        `INSERT INTO events (account_id, type, reference, payload, state, created_at, uid)
         VALUES ${slice.map((_, k) => `($${k * 4 + 1}, 'confirmation', $${k * 4 + 2}, $${k * 4 + 3}, 'not_delivered', ${at}, $${k * 4 + 4})`).join(', ')}`,
        slice.flat(),
      );
    }
    await client.query(
      `INSERT INTO carrier_receipt_counts (carrier, bucket, delivered, failed) VALUES ('simulator', $1, $2, 0)
       ON CONFLICT (carrier, bucket) DO UPDATE SET delivered = carrier_receipt_counts.delivered + excluded.delivered`,
      [at - (at % 10_000), applied.rows.length],
    );
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  await pool.query('DELETE FROM jobs WHERE id = $1 AND locked_by = $2', [jobId, token]);
}
