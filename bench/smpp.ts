import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { fmt, startBenchService } from './lib.js';
import { smpp, type Pdu } from '../src/smpp-protocol/pdu.js';
import { TestSmsc } from '../test/helpers/smsc.js';
import { encrypt } from '../src/lib/secrets.js';
import { parseSmppSettings } from '../src/carriers/smpp/settings.js';
import { writeMessages as submitMessages } from '../src/messaging/write.js';
import type { AppContext } from '../src/context.js';
import type { SmppConnector } from '../src/carriers/smpp/connector.js';
import type { OutboundMessage } from '../src/messaging/ports.js';

const ROUNDS = 4;
const COUNTS: Record<string, number> = { bare: 30_000, w1: 3_000, w10: 20_000, w100: 30_000 };
const RECEIPTS = 20_000;
const CHILD_FLAG = '--smpp-smsc';

/**
 * SMPP submission on one bind to the test SMSC (running in its own process),
 * with windows 1, 10 and 100, next to a bare `smpp` package client loop
 * (window 100, no encoding, no database) against the same SMSC, in
 * interleaved rounds (median of ROUNDS). Then receipts applied per second:
 * the SMSC sends RECEIPTS text receipts for submitted messages; the figure is
 * until every message is closed in the database with its event.
 */
export async function benchSmpp(): Promise<string> {
  const smsc = await startSmscChild();
  const svc = await startBenchService({ CARRIER_POLL_MS: '100' });
  const ctx = svc.service.ctx;
  try {
    const connectors: Record<string, SmppConnector> = {};
    for (const [name, window] of [
      ['w1', 1],
      ['w10', 10],
      ['w100', 100],
      ['rcpt', 100],
    ] as const)
      connectors[name] = await addConnector(ctx, name, smsc.port, window);
    const rates: Record<string, number[]> = { bare: [], w1: [], w10: [], w100: [] };
    /** Messages per CPU-second this process got (client side only: the SMSC has its own process). */
    const perCpu: Record<string, number[]> = { bare: [], w1: [], w10: [], w100: [] };
    let nextId = 1;
    for (let round = 0; round < ROUNDS; round++) {
      // Interleaved, and the order turns each round so no sender always follows the same one.
      const order = ['bare', 'w1', 'w10', 'w100'];
      for (const name of [...order.slice(round % 4), ...order.slice(0, round % 4)]) {
        const cpu0 = process.cpuUsage();
        if (name === 'bare') {
          rates.bare.push(await bareLoop(smsc.port, COUNTS.bare));
          perCpu.bare.push(COUNTS.bare / cpuSeconds(cpu0));
          continue;
        }
        const batch = fakeMessages(nextId, COUNTS[name]);
        nextId += batch.length;
        const t0 = performance.now();
        const outcomes = await submitAll(connectors[name], batch);
        const ms = performance.now() - t0;
        if (outcomes.some((o) => !o.ok))
          throw new Error(`${name}: ${outcomes.filter((o) => !o.ok).length} messages not taken`);
        rates[name].push((batch.length * 1000) / ms);
        perCpu[name].push(batch.length / cpuSeconds(cpu0));
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const bare = median(rates.bare);
    const receipts = await receiptRate(ctx, svc.accountId, connectors.rcpt, smsc);
    const bareCpu = median(perCpu.bare);
    const row = (label: string, name: string) =>
      `| ${label} | ${fmt(median(rates[name]))} | ${rates[name].map((r) => fmt(r)).join(' / ')} | ${fmt(median(rates[name]) / bare, 2)} | ${fmt(median(perCpu[name]))} | ${fmt(median(perCpu[name]) / bareCpu, 2)} |`;
    return [
      '## SMPP: submit_sm on one bind vs a bare smpp client loop',
      '',
      `The test SMSC (test/helpers/smsc.ts, the \`smpp\` package's server) runs in its own process. Each row submits its count of 1-segment GSM messages through SmppConnector.submit (encoding, window, throughput bookkeeping, carrier ids written to SQLite); the bare loop sends the same PDUs through a plain \`smpp\` session with 100 outstanding and nothing else. ${ROUNDS} interleaved rounds; median. msg/s depends on the CPU the two processes get on a shared machine; messages per CPU-second of the client process (this one) does not.`,
      '',
      '| sender | msg/s (median) | rounds | ratio to bare | msg per client CPU-second | ratio to bare |',
      '|---|---:|---:|---:|---:|---:|',
      `| bare smpp client loop, window 100 (baseline) | ${fmt(bare)} | ${rates.bare.map((r) => fmt(r)).join(' / ')} | 1.00 | ${fmt(bareCpu)} | 1.00 |`,
      row('Mensajero, window 1', 'w1'),
      row('Mensajero, window 10', 'w10'),
      row('Mensajero, window 100', 'w100'),
      '',
      `Receipts applied: **${fmt(receipts)} per second** (${fmt(RECEIPTS)} text receipts from the SMSC, matched by carrier id, each message closed with its confirmation event, SQLite).`,
      '',
    ].join('\n');
  } finally {
    await svc.close();
    smsc.child.kill();
  }
}

async function addConnector(ctx: AppContext, name: string, port: number, window: number): Promise<SmppConnector> {
  const now = Date.now();
  const settings = parseSmppSettings({ host: '127.0.0.1', port, system_id: name, window });
  await ctx.db.kysely
    .insertInto('carriers')
    .values({
      name,
      type: 'smpp',
      enabled: 1,
      settings: JSON.stringify(settings),
      password_enc: encrypt(ctx.secrets.keyEncryption, 'pw'),
      version: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  for (;;) {
    const c = ctx.carriers.manager.connector(name);
    if (c?.available) return c as SmppConnector;
    await new Promise((r) => setTimeout(r, 50));
  }
}

const cpuSeconds = (since: NodeJS.CpuUsage) => {
  const d = process.cpuUsage(since);
  return (d.user + d.system) / 1e6;
};

function fakeMessages(firstId: number, count: number): OutboundMessage[] {
  return Array.from({ length: count }, (_, i) => ({
    id: firstId + i,
    reference: `b${firstId + i}`,
    channel: 'sms',
    countryCode: '52',
    number: `52551${String(firstId + i).padStart(7, '0')}`,
    text: 'Su pedido va en camino',
    sender: null,
    flash: false,
    meta: null,
  }));
}

/** What the dispatcher does: batches of 1000 (the router's maxBatch). */
async function submitAll(c: SmppConnector, batch: OutboundMessage[]) {
  const out = [];
  for (let i = 0; i < batch.length; i += 1000) out.push(...(await c.submit(batch.slice(i, i + 1000))));
  return out;
}

/** A plain smpp session: bind, then `count` submit_sm with 100 outstanding; msg/s from the first send to the last response. */
async function bareLoop(port: number, count: number): Promise<number> {
  const session = smpp.connect({ host: '127.0.0.1', port });
  await new Promise<void>((resolve, reject) => {
    session.on('error', reject);
    session.on('connect', () =>
      session.send(new smpp.PDU('bind_transceiver', { system_id: 'bare', password: 'pw' }), () => resolve()),
    );
  });
  const body = Buffer.from('Su pedido va en camino', 'latin1');
  const t0 = performance.now();
  await new Promise<void>((resolve) => {
    let sent = 0;
    let done = 0;
    const one = () => {
      if (sent >= count) return;
      sent++;
      session.send(
        new smpp.PDU('submit_sm', {
          destination_addr: '525510000000',
          registered_delivery: 1,
          data_coding: 0,
          short_message: body,
        }),
        (_resp: Pdu) => {
          if (++done === count) resolve();
          else one();
        },
      );
    };
    for (let i = 0; i < 100; i++) one();
  });
  const ms = performance.now() - t0;
  await new Promise<void>((r) => session.send(new smpp.PDU('unbind'), () => r()));
  session.close();
  return (count * 1000) / ms;
}

/** Submits RECEIPTS real messages through the receipts connector, then has the SMSC send a receipt for each; times until all are closed. */
async function receiptRate(
  ctx: AppContext,
  accountId: number,
  c: SmppConnector,
  smsc: { child: ChildProcess },
): Promise<number> {
  const recipients = Array.from({ length: RECEIPTS }, (_, i) => ({
    countryCode: '52',
    number: `52552${String(i).padStart(7, '0')}`,
  }));
  // Scheduled a day ahead: the dispatcher leaves them alone, this bench submits them itself.
  const res = await ctx.db.kysely.transaction().execute((trx) =>
    submitMessages(trx, ctx, {
      accountId,
      channel: 'sms',
      source: 'sms',
      recipients,
      text: 'Hola',
      scheduledAt: Date.now() + 86_400_000,
    }),
  );
  const rows = await ctx.db.kysely
    .selectFrom('messages')
    .select(['id', 'number'])
    .where('campaign_id', '=', res.campaignId)
    .execute();
  const ids: string[] = [];
  for (let i = 0; i < rows.length; i += 1000) {
    const slice = rows.slice(i, i + 1000);
    const outcomes = await c.submit(
      slice.map((r) => ({
        id: r.id,
        reference: '',
        channel: 'sms',
        countryCode: '52',
        number: r.number,
        text: 'Hola',
        sender: null,
        flash: false,
        meta: null,
      })),
    );
    for (const o of outcomes) if (o.ok && o.carrierId) ids.push(o.carrierId);
  }
  const t0 = performance.now();
  smsc.child.send({ receipts: ids, systemId: 'rcpt' });
  for (;;) {
    const open = await ctx.db.kysely
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('campaign_id', '=', res.campaignId)
      .where('stage', '<', 2)
      .executeTakeFirstOrThrow();
    if (Number(open.n) === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return (rows.length * 1000) / (performance.now() - t0);
}

function startSmscChild(): Promise<{ child: ChildProcess; port: number }> {
  const child = fork(fileURLToPath(import.meta.url), [CHILD_FLAG], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`SMSC child exited with ${code}`)));
  });
}

if (process.argv.includes(CHILD_FLAG)) {
  const smsc = await new TestSmsc({ record: false }).start();
  process.on('message', (m: { receipts: string[]; systemId: string }) => {
    for (const id of m.receipts) smsc.sendReceiptTo(m.systemId, id);
  });
  process.send!({ port: smsc.port });
}
