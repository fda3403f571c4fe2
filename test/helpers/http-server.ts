import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SeenRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A local HTTP server on a free port that records every request and answers with `answer`. */
export async function startHttpServer(
  answer: (
    r: SeenRequest,
  ) => { status: number; body?: unknown; type?: string } | Promise<{ status: number; body?: unknown; type?: string }>,
) {
  const seen: SeenRequest[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      const url = new URL(req.url!, 'http://x');
      const r = { method: req.method!, path: url.pathname, query: url.searchParams, headers: req.headers, body };
      seen.push(r);
      const a = await answer(r);
      const text = a.body === undefined ? '' : typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
      res.writeHead(a.status, { 'content-type': a.type ?? 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
