import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningService } from '../../src/app/serve.js';
import { writeMessages } from '../../src/messaging/write.js';
import { webhookCommands } from '../../src/webhooks/cli.js';
import type { AppContext } from '../../src/context.js';
import { runCommands } from './cli.js';

/** A real webhook receiver on 127.0.0.1. `answer` picks the status of each GET or POST; HEAD always gets 200. */
export interface Received {
  method: string;
  path: string;
  query: string;
  headers: IncomingHttpHeaders;
  body: string;
  params: Record<string, string>;
}

export async function receiver(
  answer: (r: Received, deliveries: number) => number | Promise<number> = () => 200,
  port = 0,
) {
  const received: Received[] = [];
  let server: Server;
  const listen = (p: number) =>
    new Promise<number>((resolve) => {
      server = createServer((req, res) => {
        let body = '';
        req.on('data', (c) => (body += c));
        req.on('end', async () => {
          const [path, query = ''] = req.url!.split('?');
          const params = Object.fromEntries(new URLSearchParams(req.method === 'POST' ? body : query));
          const r = { method: req.method!, path, query, headers: req.headers, body, params };
          received.push(r);
          const status =
            req.method === 'HEAD' ? 200 : await answer(r, received.filter((x) => x.method !== 'HEAD').length);
          if (!res.destroyed) res.writeHead(status).end(req.method === 'HEAD' ? undefined : 'ok');
        });
      });
      server.listen(p, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
    });
  const actualPort = await listen(port);
  const stop = () =>
    new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    });
  return {
    url: `http://127.0.0.1:${actualPort}/hook`,
    port: actualPort,
    received,
    /** Deliveries (GET or POST), not the HEAD checks. */
    deliveries: () => received.filter((x) => x.method !== 'HEAD'),
    stop,
    restart: () => listen(actualPort),
  };
}

export type Service = Pick<RunningService, 'ctx' | 'app'>;

export async function post(s: Service, url: string, body: unknown, apikey: string) {
  const res = await s.app.inject({ method: 'POST', url, headers: { apikey }, payload: body as object });
  return JSON.parse(res.body);
}

/** Sends one SMS per number through the real pipeline; the simulator reports each status. */
export async function sendSms(s: Service, accountId: number, numbers: string[], extraParams?: string) {
  const res = await s.ctx.db.kysely.transaction().execute((trx) =>
    writeMessages(trx, s.ctx, {
      accountId,
      channel: 'sms',
      source: 'sms',
      recipients: numbers.map((n) => ({ countryCode: '52', number: `52${n}` })),
      text: 'Hola',
      extraParams,
    }),
  );
  s.ctx.worker.nudge();
  return res.references;
}

export const eventsOf = (s: Service, accountId: number) =>
  s.ctx.db.kysely.selectFrom('events').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
export const attemptsOf = (s: Service, eventId: number) =>
  s.ctx.db.kysely.selectFrom('event_attempts').selectAll().where('event_id', '=', eventId).orderBy('id').execute();

/** Runs a `mensajero` command of the webhooks feature in this process, against `ctx`. */
export const cli = (ctx: AppContext, args: string[]) => runCommands(ctx, [webhookCommands], [...args, '--json']);

export const settle = (ms = 400) => new Promise((r) => setTimeout(r, ms));
