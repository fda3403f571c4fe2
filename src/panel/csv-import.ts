import { once } from 'node:events';
import { PassThrough, Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import { parse as csvParser, type Parser } from 'csv-parse';
import { ApiError } from '../http/errors.js';
import { refuse } from './view.js';

/** A row an import refuses: its line in the file, and the code and message the API would answer. */
export interface RowError {
  line: number;
  code: string;
  message: string;
}

export interface ImportLimits {
  /** Rows a file may have (its header aside): 400 import_too_many past them. */
  rows: number;
  /** Bytes a body may have: 413 import_too_large past them, declared or read. */
  bytes: number;
  /** Row errors listed back (the count says how many there are in all). */
  shown: number;
}

export interface CsvRows<T> {
  rows: T[];
  /** The first `shown` errors, by line. */
  errors: RowError[];
  errorCount: number;
}

/** What a reader makes of one record: a row, the row's error, or null for a record that is no row (a header). */
export type RowOf<T> = { row: T } | { error: { code: string; message: string } } | null;

export interface CsvShape {
  /** Every record has as many fields as the first (else 400 import_malformed). */
  sameColumns: boolean;
  /** The longest record, in characters (else 400 import_malformed). */
  maxRecordSize: number;
}

/** Bytes parsed between two turns of the event loop: 512 one-character rows, a millisecond or two. */
const SLICE = 1024;
/** Milliseconds of reading rows (the reader's checks) before the event loop gets a turn. */
const TURN_MS = 2;

/**
 * The rows of a CSV body, read as it arrives: `read` turns each record
 * (its fields trimmed, empty lines skipped, a BOM dropped) into a row, an
 * error for its line, or nothing. The body is parsed a slice at a time with
 * a turn of the event loop after each slice and every TURN_MS of reading rows, and it is
 * no longer read once it goes past the row limit (400 import_too_many) or
 * the byte limit (413 import_too_large), so neither a long file nor many
 * short rows hold the process; a body that is no CSV answers 400
 * import_malformed, one without rows 400 import_empty.
 */
export async function readCsv<T>(
  body: Readable,
  limits: ImportLimits,
  shape: CsvShape,
  read: (record: string[], line: number) => RowOf<T>,
): Promise<CsvRows<T>> {
  const parser = csvParser({
    bom: true,
    skip_empty_lines: true,
    trim: true,
    relax_column_count: !shape.sameColumns,
    max_record_size: shape.maxRecordSize,
    info: true,
  });
  const stop = feed(body, parser, limits.bytes);
  const out: CsvRows<T> = { rows: [], errors: [], errorCount: 0 };
  let since = performance.now();
  try {
    for await (const { record, info } of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      if (performance.now() - since >= TURN_MS) since = await nextTurn().then(() => performance.now());
      const got = read(record, info.lines);
      if (!got) continue;
      if (out.rows.length + out.errorCount >= limits.rows) throw refuse(400, 'import_too_many', { max: limits.rows });
      if ('row' in got) out.rows.push(got.row);
      else if (++out.errorCount <= limits.shown) out.errors.push({ line: info.lines, ...got.error });
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw refuse(400, 'import_malformed', { detail: String((err as Error).message).slice(0, 200) });
  } finally {
    stop();
  }
  if (out.rows.length + out.errorCount === 0) throw refuse(400, 'import_empty');
  return out;
}

/**
 * Writes the body into the parser SLICE bytes at a time, at the parser's
 * pace and with a turn of the event loop after each slice (parsing is all
 * CPU: a millisecond or two a slice, never the whole body at once), counting
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

/** One import of a CSV file the panel takes (see csvImports). */
export interface CsvImport<T> {
  /** The account family it belongs to: one import at a time each. */
  family: number;
  limits: ImportLimits;
  /** The file's rows (readCsv). */
  read(body: Readable, limits: ImportLimits): Promise<CsvRows<T>>;
  /** Refuses (throws) rows that are each fine but not together, before anything is written. */
  check?(rows: T[]): Promise<void>;
  /** Writes the rows in short transactions, calling `written` after each commit with how many are written. */
  write(rows: T[], written: (count: number) => void): Promise<unknown>;
  /** The message of the `failed` line after `written` rows (the log says what went wrong). */
  failed(err: unknown, written: number): string;
  /** What the log calls it. */
  name: string;
}

/**
 * The panel's CSV imports on one route, with one import at a time per
 * account family in this process (429 import_busy). An import's body
 * stays a stream (the route's content-type parser hands it over) and is
 * read within its limits; a file with row errors is refused whole (400
 * import_rows, the first errors by line and their count); otherwise the
 * answer is one JSON line each: the total, `written` after each committed
 * chunk, then `done` (or `failed`, with what was written).
 */
export function csvImports() {
  const busy = new Set<number>();
  return async function run<T>(request: FastifyRequest, reply: FastifyReply, job: CsvImport<T>) {
    if (!(request.body instanceof Readable)) throw refuse(415, 'import_csv_only');
    // Whatever the answer, the rest of a refused body is never read: the connection closes after it.
    reply.header('connection', 'close');
    if (Number(request.headers['content-length']) > job.limits.bytes)
      throw refuse(413, 'import_too_large', { max: job.limits.bytes });
    if (busy.has(job.family)) throw refuse(429, 'import_busy');
    busy.add(job.family);
    let writing = false;
    try {
      const { rows, errors, errorCount } = await job.read(request.body, job.limits);
      if (errorCount > 0)
        return reply.code(400).send({
          success: false,
          status: 400,
          code: 'import_rows',
          message: `${errorCount} rows are not valid; nothing was imported`,
          errors,
          error_count: errorCount,
        });
      await job.check?.(rows);
      reply.removeHeader('connection');
      writing = true;
      const out = writeImport(job, rows, request.log);
      void out.finished.finally(() => busy.delete(job.family));
      return reply.type('application/x-ndjson; charset=utf-8').send(out);
    } finally {
      if (!writing) busy.delete(job.family);
    }
  };
}

function writeImport<T>(job: CsvImport<T>, rows: T[], log: FastifyBaseLogger) {
  const out = new PassThrough();
  const line = (value: unknown) => out.write(JSON.stringify(value) + '\n');
  line({ total: rows.length });
  let written = 0;
  const finished = job
    .write(rows, (count) => line({ written: (written = count) }))
    .then(() => line({ done: true, written: rows.length }))
    .catch((err) => {
      log.error({ err }, `${job.name} import failed`);
      line({ failed: true, written, message: job.failed(err, written) });
    })
    .finally(() => out.end());
  return Object.assign(out, { finished });
}
