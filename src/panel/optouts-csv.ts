import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { parse as csvParser, type Parser } from 'csv-parse';
import { ApiError } from '../http/errors.js';
import { fullNumber } from '../features/optouts/service.js';
import { refuse } from './view.js';

export interface RowError {
  line: number;
  code: string;
  message: string;
}

export interface CsvNumbers {
  numbers: string[];
  /** The first `shown` errors. */
  errors: RowError[];
  errorCount: number;
}

/** Bytes parsed between two turns of the event loop. */
const SLICE = 16 * 1024;

interface Limits {
  rows: number;
  bytes: number;
  shown: number;
}

/**
 * The numbers of an opt-out CSV, read as it arrives: the first column of
 * every row (10 digits with country code 52, or + and the full number), or
 * the columns `number` and `country_code` when the first row names them. A
 * leading apostrophe (how the export keeps +52… as text) is dropped. The
 * body is parsed a chunk at a time and no longer read once it goes past the
 * row limit (400 import_too_many) or the byte limit (413 import_too_large),
 * so neither a long file nor many short rows hold the process.
 */
export async function numbersOfCsv(body: Readable, limits: Limits): Promise<CsvNumbers> {
  const parser = csvParser({
    bom: true,
    skip_empty_lines: true,
    trim: true,
    relax_column_count: true,
    max_record_size: 1024,
    info: true,
  });
  const stop = feed(body, parser, limits.bytes);
  const out: CsvNumbers = { numbers: [], errors: [], errorCount: 0 };
  const numbers = new Set<string>();
  let columns: [number, number] | undefined;
  let rows = 0;
  try {
    for await (const { record: row, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (!columns) {
        const header = row.map((c) => c.toLowerCase());
        const named = header.includes('number');
        columns = named ? [header.indexOf('number'), header.indexOf('country_code')] : [0, -1];
        if (named) continue;
      }
      if (++rows > limits.rows) throw refuse(400, 'import_too_many', { max: limits.rows });
      const [numberAt, ccAt] = columns;
      const cc = ccAt >= 0 && row[ccAt] ? row[ccAt] : '52';
      const full = /^\+?\d{1,3}$/.test(cc) ? fullNumber((row[numberAt] ?? '').replace(/^'/, ''), cc) : null;
      if (full) numbers.add(full);
      else if (++out.errorCount <= limits.shown)
        out.errors.push({
          line: info.lines,
          code: 'optout_05',
          message: `malformed number: ${String(row[numberAt] ?? '').slice(0, 20)}`,
        });
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw refuse(400, 'import_malformed', { detail: String((err as Error).message).slice(0, 200) });
  } finally {
    stop();
  }
  if (rows === 0) throw refuse(400, 'import_empty');
  out.numbers = [...numbers];
  return out;
}

/**
 * Writes the body into the parser SLICE bytes at a time, at the parser's
 * pace and with a turn of the event loop after each slice (parsing is all
 * CPU: a few milliseconds a slice, never the whole body at once), counting
 * bytes; past `maxBytes` the parser fails with 413. Returns what stops
 * reading: the body is left paused, never drained (the answer closes the
 * connection).
 */
function feed(body: Readable, parser: Parser, maxBytes: number): () => void {
  const stopped = new AbortController();
  let bytes = 0;
  const writeSlices = async (chunk: Buffer) => {
    for (let i = 0; i < chunk.length && !stopped.signal.aborted; i += SLICE) {
      const slice = chunk.subarray(i, i + SLICE);
      bytes += slice.length;
      if (bytes > maxBytes) return void parser.destroy(refuse(413, 'import_too_large', { max: maxBytes }));
      if (!parser.write(slice)) await once(parser, 'drain', { signal: stopped.signal });
      await nextTurn();
    }
  };
  // 'end' may come while slices are still being written: it waits for them.
  let written = Promise.resolve();
  const onData = (chunk: Buffer | string) => {
    body.pause();
    written = written
      .then(() => writeSlices(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk)))
      .then(
        () => void (!stopped.signal.aborted && body.resume()),
        (err: Error) => void (!stopped.signal.aborted && parser.destroy(err)),
      );
  };
  const onEnd = () => void written.then(() => !stopped.signal.aborted && parser.end());
  const onClose = () => {
    if (!body.readableEnded) parser.destroy(refuse(400, 'import_malformed', { detail: 'the upload was cut short' }));
  };
  body.on('data', onData).on('end', onEnd).on('close', onClose).on('error', onClose);
  return () => {
    stopped.abort();
    body.off('data', onData).off('end', onEnd).off('close', onClose).off('error', onClose);
    body.pause();
  };
}
