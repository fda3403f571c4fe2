import { Agent, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fmt, startBenchService } from './lib.js';
import { smpp, type Pdu, type SmppSession } from '../src/smpp-protocol/pdu.js';
import { gsmSeptets } from '../src/smpp-protocol/encoding.js';
import { addSmppUser } from '../src/features/smpp-users/service.js';
import { sqliteFloor } from './sqlite-floor.js';

const ROUNDS = Number(process.env.BENCH_SMPP_SERVER_ROUNDS ?? 3);
const COUNTS: Record<string, number> = {
  bare: 10_000,
  floor: 10_000,
  life: 10_000,
  w1: 1_000,
  w10: 5_000,
  w100: 10_000,
  http100: 10_000,
};
const RECEIPTS = 2_000;
const BODY_TEXT = 'Benchmark message from a customer gateway';
const BODY = Buffer.from(gsmSeptets(BODY_TEXT));

export function connect(port: number): Promise<SmppSession> {
  return new Promise((resolve) => {
    const s = smpp.connect({ host: '127.0.0.1', port });
    s.on('connect', () => resolve(s));
    s.on('enquire_link', (pdu: Pdu) => s.send(pdu.response()));
  });
}

export function bind(session: SmppSession, mode: string, systemId: string, password: string): Promise<number> {
  return new Promise((r) =>
    session[`bind_${mode}`]({ system_id: systemId, password }, (p: Pdu) => r(p.command_status)),
  );
}

interface LoopResult {
  rate: number;
  refused: number;
  /** Milliseconds from a request's write to its answer, sorted. */
  times: number[];
}

/** Runs `count` requests, `window` unanswered at most: requests per second, how many were refused, each one's time. */
function windowed(count: number, window: number, request: () => Promise<boolean>): Promise<LoopResult> {
  return new Promise((resolve, reject) => {
    let sent = 0;
    let done = 0;
    let refused = 0;
    const times: number[] = [];
    const t0 = performance.now();
    const next = () => {
      while (sent < count && sent - done < window) {
        sent++;
        const at = performance.now();
        request().then((ok) => {
          times.push(performance.now() - at);
          done++;
          if (!ok) refused++;
          if (done === count)
            resolve({ rate: (count * 1000) / (performance.now() - t0), refused, times: times.sort((a, b) => a - b) });
          else next();
        }, reject);
      }
    };
    next();
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/** submit_sm accepted per second from one bind with `window` unanswered at most. */
export function submitLoop(session: SmppSession, count: number, window: number): Promise<LoopResult> {
  return windowed(
    count,
    window,
    () =>
      new Promise((ok) =>
        session.submit_sm({ destination_addr: '525512345678', dest_addr_ton: 1, short_message: BODY }, (resp: Pdu) =>
          ok(resp.command_status === 0),
        ),
      ),
  );
}

/** A bare `smpp` package server answering every submit_sm from memory: the ceiling of the codec and the socket. */
async function bareServer(): Promise<{ port: number; close(): void }> {
  let id = 0;
  const server = smpp.createServer({}, (session: SmppSession) => {
    session.on('bind_transceiver', (pdu: Pdu) => session.send(pdu.response()));
    session.on('submit_sm', (pdu: Pdu) => session.send(pdu.response({ message_id: String(++id) })));
    session.on('error', () => undefined);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, close: () => server.close() };
}

/**
 * The same message sent by POST /sms/send from a keep-alive client with
 * `window` requests unanswered at most (one connection each): what an HTTP
 * customer gets in place of the bind.
 */
function httpLoop(base: string, apikey: string, count: number, window: number): Promise<LoopResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: window });
  const body = JSON.stringify({ numbers: '525512345678', find_country_code: 1, message: BODY_TEXT });
  const url = new URL('/sms/send', base);
  const send = () =>
    new Promise<boolean>((resolve, reject) => {
      const req = request(
        url,
        { method: 'POST', agent, headers: { apikey, 'content-type': 'application/json' } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode === 200));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return windowed(count, window, send).finally(() => agent.destroy());
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The SMPP server: submit_sm accepted per second from one bind at windows 1,
 * 10 and 100 (each stored, charged and handed to the simulator carrier),
 * next to a bare `smpp` server answering from memory, interleaved rounds
 * (median); then receipts delivered per second to one bound receiver.
 */
export async function benchSmppServer(): Promise<string> {
  // Every message goes to one number: the destination caps would refuse all but the first few.
  const svc = await startBenchService({
    SMPP_SERVER_PORT: '0',
    SMPP_SERVER_HOST: '127.0.0.1',
    DESTINATION_MAX_PER_NUMBER_HOUR: '0',
    DESTINATION_MAX_SAME_TEXT_HOUR: '0',
  });
  const ctx = svc.service.ctx;
  const bare = await bareServer();
  const floor = await sqliteFloor();
  const sessions: SmppSession[] = [];
  try {
    const port = svc.service.smpp!.port!;
    const account = { id: svc.accountId, email: 'bench@example.com' };
    await addSmppUser(ctx.db, account, {
      systemId: 'bench',
      password: 'bench01',
      throughput: 0,
      window: 100,
      maxBinds: 8,
    });
    const ours = await connect(port);
    sessions.push(ours);
    if ((await bind(ours, 'transceiver', 'bench', 'bench01')) !== 0) throw new Error('bind refused');
    const bareSession = await connect(bare.port);
    sessions.push(bareSession);
    await bind(bareSession, 'transceiver', 'x', 'x');
    const order = ['bare', 'floor', 'life', 'w1', 'w10', 'w100', 'http100'];
    const rates: Record<string, number[]> = Object.fromEntries(order.map((name) => [name, []]));
    // Response times of every round of a sender, pooled: its p50 and p99.
    const times: Record<string, number[]> = Object.fromEntries(order.map((name) => [name, []]));
    let accepted = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const name of [...order.slice(round % order.length), ...order.slice(0, round % order.length)]) {
        const window = ['bare', 'floor', 'life'].includes(name) ? 100 : Number(name.replace(/^\D+/, ''));
        const r =
          name === 'floor' || name === 'life'
            ? { rate: floor[name === 'floor' ? 'run' : 'life'](COUNTS[name], window), refused: 0, times: [] }
            : name === 'http100'
              ? await httpLoop(svc.base, svc.apikey, COUNTS[name], window)
              : await submitLoop(name === 'bare' ? bareSession : ours, COUNTS[name], window);
        if (r.refused > 0) throw new Error(`${name}: ${r.refused} sends refused`);
        if (!['bare', 'floor', 'life'].includes(name)) accepted += COUNTS[name];
        rates[name].push(r.rate);
        times[name].push(...r.times);
      }
    }
    const stored = await ctx.db.kysely
      .selectFrom('messages')
      .select((eb) => [eb.fn.countAll<number>().as('n'), eb.fn.sum<number>('price_units').as('units')])
      .where('account_id', '=', svc.accountId)
      .executeTakeFirstOrThrow();
    if (Number(stored.n) !== accepted) throw new Error(`${accepted} accepted, ${stored.n} stored`);
    process.stderr.write('bench: smpp-server waits for the hand-off of the sends…\n');
    const drainMs = await handedOverAndReported(ctx, svc.accountId);
    process.stderr.write('bench: smpp-server receipts…\n');
    // The transceiver used for the sends is a receiver too: it takes its share of the receipts.
    const receipts = await receiptRate(svc.accountId, ctx, port, ours, sessions);
    // Both loops' work on one thread, nothing else: what no server storing every message here can beat.
    const ceiling = 1 / (1 / median(rates.bare) + 1 / median(rates.life));
    const latency = (name: string) => {
      const sorted = times[name].sort((a, b) => a - b);
      return sorted.length === 0 ? '| |' : `${fmt(percentile(sorted, 0.5), 2)} | ${fmt(percentile(sorted, 0.99), 2)} |`;
    };
    const row = (name: string, label: string) =>
      `| ${label} | ${fmt(median(rates[name]))} | ${fmt(median(rates[name]) / median(rates.bare), 2)} | ${latency(name)}`;
    return [
      '## SMPP server (customers bind to the service)',
      '',
      `One bind of the \`smpp\` package as the customer, median of ${ROUNDS} interleaved rounds; every accepted`,
      `submit_sm is stored, charged and handed to the simulator (${fmt(accepted)} messages, ${fmt(Number(stored.units))} credit units).`,
      'The HTTP row sends the same message to the same number by POST /sms/send (one recipient per request) from a',
      'keep-alive client in the same process, 100 requests unanswered at most, as the SMPP client keeps 100 submit_sm.',
      '',
      '| sender | messages/s | vs bare server | p50 ms | p99 ms |',
      '|---|---:|---:|---:|---:|',
      row('bare', 'bare `smpp` server answering from memory (window 100)'),
      row('floor', 'floor: the rows of each message written by raw better-sqlite3, 100 per commit, multi-row'),
      row('life', "floor of a message's whole life: the same, then its hand-off and delivery report, 100 per commit"),
      row('w1', 'Mensajero, window 1'),
      row('w10', 'Mensajero, window 10'),
      row('w100', 'Mensajero, window 100'),
      row('http100', 'Mensajero over HTTP, POST /sms/send, 100 in flight'),
      '',
      `SMPP at window 100 vs HTTP with 100 in flight: ${fmt(median(rates.w100) / median(rates.http100), 2)}; vs the floor of its writes: ${fmt(median(rates.w100) / median(rates.floor), 2)}.`,
      '',
      `Ceiling on one thread: the bare loop's work (codec, sockets, the client) plus the whole-life floor's writes take`,
      `1/bare + 1/life seconds per message, at most ${fmt(ceiling, 0)} messages/s or ${fmt(ceiling / median(rates.bare), 2)} of the bare server;`,
      `window 100 reaches ${fmt(median(rates.w100) / ceiling, 2)} of that ceiling.`,
      '',
      `Receipts delivered to the customer's two binds (window 100 each): ${fmt(receipts)} deliver_sm/s (${fmt(RECEIPTS)} waiting rows, deleted in batches as their deliver_sm_resp 0 arrive; measured once the ${fmt(accepted)} sends were handed over and their simulated reports recorded, ${fmt(drainMs / 1000, 1)} s after the last send).`,
      '',
    ].join('\n');
  } finally {
    // Open client sockets would keep the bench process alive after its last section.
    for (const s of sessions) s.destroy();
    bare.close();
    floor.close();
    await svc.close();
  }
}

/** Waits until every message of the account is final (handed over and reported); returns how long that took. */
async function handedOverAndReported(ctx: import('../src/context.js').AppContext, accountId: number): Promise<number> {
  const t0 = performance.now();
  for (;;) {
    const open = await ctx.db.kysely
      .selectFrom('messages')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('account_id', '=', accountId)
      .where('stage', '<', 2)
      .executeTakeFirstOrThrow();
    if (Number(open.n) === 0) return performance.now() - t0;
    if (performance.now() - t0 > 300_000) throw new Error(`${open.n} messages still open after 5 minutes`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function receiptRate(
  accountId: number,
  ctx: import('../src/context.js').AppContext,
  port: number,
  transceiver: SmppSession,
  sessions: SmppSession[],
): Promise<number> {
  const rx = await connect(port);
  sessions.push(rx);
  let got = 0;
  // Both sessions answer before the first row exists: the pump may send to the bound transceiver at once.
  const done = new Promise<void>((resolve) => {
    for (const s of [rx, transceiver])
      s.on('deliver_sm', (p: Pdu) => {
        s.send(p.response());
        if (++got === RECEIPTS) resolve();
      });
  });
  const now = Date.now();
  const notice = JSON.stringify({
    message_id: 'x',
    number: '525512345678',
    address: 'BENCH',
    text: 'x',
    submitted_at: now,
    done_at: now,
    code: 0,
  });
  const t0 = performance.now();
  for (let i = 0; i < RECEIPTS; i += 500)
    await ctx.db.kysely
      .insertInto('smpp_deliveries')
      .values(
        Array.from({ length: Math.min(500, RECEIPTS - i) }, () => ({
          account_id: accountId,
          kind: 'receipt' as const,
          notice,
          created_at: now,
          next_at: now,
          attempts: 0,
          claimed_by: null,
          claimed_until: null,
        })),
      )
      .execute();
  await bind(rx, 'receiver', 'bench', 'bench01');
  await done;
  return (RECEIPTS * 1000) / (performance.now() - t0);
}
