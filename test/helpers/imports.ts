/* What the panel's CSV import suites share: bodies read as the service pulls them, answers read as they stream. */
import { Readable } from 'node:stream';
import type { Harness } from './harness.js';

/** A CSV body of `row` repeated up to `bytes` (after `head`), made as the service reads it: `pulled` says how much it read. */
export function csvBody(row: string, bytes: number, head = '') {
  const chunk = row.repeat(Math.ceil(65_536 / row.length));
  const body = { pulled: 0, stream: undefined as unknown as Readable };
  let first = head;
  body.stream = new Readable({
    read() {
      if (body.pulled >= bytes) return void this.push(null);
      const source = first || chunk;
      first = '';
      const part = source.slice(0, Math.min(source.length, bytes - body.pulled));
      body.pulled += part.length;
      this.push(part);
    },
  });
  return body;
}

/** The JSON lines of an import's answer as they arrive (a refusal is one). */
export async function* progress(res: { stream(): Readable }): AsyncGenerator<Record<string, unknown>> {
  let rest = '';
  for await (const chunk of res.stream()) {
    const parts = (rest + String(chunk)).split('\n');
    rest = parts.pop()!;
    for (const line of parts) if (line.trim()) yield JSON.parse(line);
  }
  if (rest.trim()) yield JSON.parse(rest);
}

/** Posts CSV files to one of the panel's import URLs with a session's cookie and its page's CSRF token. */
export function csvUploads(h: Harness, cookie: string, csrf: () => Promise<string>) {
  const importHeaders = async (token?: string) => ({
    cookie,
    'content-type': 'text/csv',
    accept: 'application/json',
    'x-csrf-token': token ?? (await csrf()),
  });
  const upload = async (url: string, csv: string, token?: string) =>
    h.request('POST', url, { body: csv, headers: await importHeaders(token) });
  /** An import whose body is `body` (read as the service pulls it) and whose answer is read as it streams. */
  const uploadStream = async (url: string, body: Readable) =>
    h.app.inject({ method: 'POST', url, headers: await importHeaders(), payload: body, payloadAsStream: true });
  return { upload, uploadStream };
}
