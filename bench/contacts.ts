import { fmt, peakRssGrowth, startBenchService } from './lib.js';

const CONTACTS = 100_000;
const INSERT_BATCH = 1_000;

/**
 * POST /agendas/get_contacts on a list of 100,000 contacts (streamed from the
 * database in keyset-paginated chunks) against the raw query of the same rows
 * in the same run: time, and peak memory growth of the process (server and
 * client share it; the client counts bytes and never holds the body).
 */
export async function benchContacts(): Promise<string> {
  const svc = await startBenchService();
  try {
    const db = svc.service.ctx.db.kysely;
    const headers = { apikey: svc.apikey, 'content-type': 'application/json' };
    const added = await (
      await fetch(`${svc.base}/agendas/add`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ agenda_name: 'bench' }),
      })
    ).json();
    const listKey: string = added.list_key;
    const { id: listId } = await db
      .selectFrom('contact_lists')
      .select('id')
      .where('list_key', '=', listKey)
      .executeTakeFirstOrThrow();

    const fillStart = performance.now();
    const now = Date.now();
    for (let start = 0; start < CONTACTS; start += INSERT_BATCH) {
      const rows = Array.from({ length: INSERT_BATCH }, (_, i) => {
        const n = String(start + i).padStart(8, '0');
        return {
          account_id: svc.accountId,
          list_id: listId,
          country_code: '52',
          number: `5255${n}`,
          name: `Contacto ${n}`,
          email: `c${n}@example.com`,
          created_at: now + start + i,
          updated_at: now,
        };
      });
      await db.insertInto('contacts').values(rows).execute();
    }
    const fillMs = performance.now() - fillStart;

    const rawQuery = () =>
      db
        .selectFrom('contacts')
        .select(['id', 'name', 'number', 'email', 'created_at'])
        .where('list_id', '=', listId)
        .orderBy('id')
        .execute();
    await rawQuery(); // warm the page cache and statement cache for both measurements
    const raw = await peakRssGrowth(rawQuery);
    if (raw.value.length !== CONTACTS) throw new Error(`raw query returned ${raw.value.length} rows`);
    raw.value.length = 0;

    const http = await peakRssGrowth(async () => {
      const res = await fetch(`${svc.base}/agendas/get_contacts`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ list_key: listKey }),
      });
      if (res.status !== 200 || !res.body) throw new Error(`get_contacts answered ${res.status}`);
      let bytes = 0;
      let braces = 0;
      let tail = '';
      const decoder = new TextDecoder();
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        bytes += chunk.length;
        const text = decoder.decode(chunk, { stream: true });
        for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) braces++;
        tail = (tail + text).slice(-32);
      }
      // One brace opens the envelope, one each entry (generated names hold none).
      return { bytes, entries: braces - 1, complete: tail.endsWith(']}') };
    });
    if (http.value.entries !== CONTACTS || !http.value.complete)
      throw new Error(`get_contacts streamed ${http.value.entries} entries (complete: ${http.value.complete})`);

    const ratio = http.ms / raw.ms;
    return [
      '## Contacts: /agendas/get_contacts on 100,000 contacts vs the raw query (SQLite)',
      '',
      `A list of ${fmt(CONTACTS)} contacts (filled in ${fmt(fillMs / 1000, 1)} s). The HTTP call streams its JSON array, reading 2,000 rows per keyset-paginated query; the client counts the bytes without keeping them. Peak memory is the growth of the process RSS during the call.`,
      '',
      '| operation | time ms | peak RSS growth MB |',
      '|---|---:|---:|',
      `| raw query of the same rows, all in memory (baseline) | ${fmt(raw.ms)} | ${fmt(raw.peakMb, 1)} |`,
      `| POST /agendas/get_contacts, ${fmt(http.value.bytes / 1_048_576, 1)} MB of JSON | ${fmt(http.ms)} | ${fmt(http.peakMb, 1)} |`,
      '',
      `Ratio HTTP call ÷ raw query time: **${fmt(ratio, 2)}** (the HTTP call also formats dates, serialises JSON and sends it over loopback).`,
      '',
    ].join('\n');
  } finally {
    await svc.close();
  }
}
