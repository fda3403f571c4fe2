import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A real HTTP receiver on 127.0.0.1; `answer` picks the status of each request. */
export async function receiver(answer: (r: Received) => number | Promise<number> = () => 200) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const r = { method: req.method!, url: req.url!, headers: req.headers, body };
      received.push(r);
      const status = await answer(r);
      if (status === 302) res.writeHead(302, { location: '/missing' }).end();
      else res.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
