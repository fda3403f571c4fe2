import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The recording carrier of the crash tests: test/chaos/carrier.mjs (loaded by
 * `mensajero serve` as CARRIER_MODULE) POSTs every batch here before the
 * simulated carrier takes it, so hand-offs are counted outside the process a
 * test kills. `delayMs` holds each answer, like a carrier that throttles.
 */
export async function startRecordingCarrier(delayMs = 0) {
  const handOffs = new Map<number, number>();
  const batches: Array<{ at: number; pid: number; ids: number[] }> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { ids, pid } = JSON.parse(body) as { ids: number[]; pid: number };
      batches.push({ at: Date.now(), pid, ids });
      for (const id of ids) handOffs.set(id, (handOffs.get(id) ?? 0) + 1);
      setTimeout(() => res.writeHead(200).end('{}'), delayMs);
    });
  });
  const port = await listen(server, 0);
  return {
    url: `http://127.0.0.1:${port}/submit`,
    handOffs,
    batches,
    repeated: () => [...handOffs].filter(([, n]) => n > 1).map(([id]) => id),
    stop: () => close(server),
  };
}

/** A webhook receiver that can go down (port closed) and come back on the same port. Records each delivery's reference. */
export async function startWebhookReceiver() {
  const references = new Map<string, number>();
  const make = () =>
    createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.method !== 'HEAD') {
          const params = new URLSearchParams(req.method === 'POST' ? body : (req.url!.split('?')[1] ?? ''));
          const ref = params.get('reference');
          if (ref && params.get('type') === 'confirmation') references.set(ref, (references.get(ref) ?? 0) + 1);
        }
        res.writeHead(200).end('ok');
      });
    });
  let server = make();
  const port = await listen(server, 0);
  return {
    url: `http://127.0.0.1:${port}/hook`,
    references,
    down: () => close(server),
    async up() {
      server = make();
      await listen(server, port);
    },
    stop: () => close(server),
  };
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}
