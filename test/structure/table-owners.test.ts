// Each table is written only by the module that declares it (its tables.ts or *-tables.ts adds it to `Database`):
// another module goes through the owner's functions, so who changes a table is read from one folder. The linter and
// madge see imports, not tables: this check parses src/ with the TypeScript compiler and lists every write.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { moduleOf, sourceFiles, tableOwners, UNNAMED, writesOf } from '../helpers/table-writes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/**
 * Files that write every module's tables by design, and why:
 * - migrations create and reshape each table as it was at their point in history;
 * - move-database copies every table as it is, whoever owns it;
 * - backup copies the database file;
 * - `testing.ts` files are test helpers kept beside their feature (no file of the service imports them).
 */
const EXEMPT = /^src\/(db\/migrations|move-database|backup)\/|\/testing\.ts$/;

/** Writes allowed outside their module while a move is impossible: `file` → tables, each with its reason. None now. */
const EXCEPTIONS: Record<string, { tables: string[]; reason: string }> = {};

const files = sourceFiles(ROOT);
const { owners, declaring } = tableOwners(ROOT, files);
const writes = files.filter((file) => !EXEMPT.test(file)).flatMap((file) => writesOf(file, read(file)));

describe('the table-owners check reads src/ as it is', () => {
  it('finds each module’s tables where they are declared', () => {
    expect(owners.get('messages')).toBe('messaging');
    expect(owners.get('accounts')).toBe('accounts');
    expect(owners.get('contacts')).toBe('features/contacts');
    expect(owners.size).toBeGreaterThan(70);
  });

  it('takes declarations from tables files only (and src/db/schema.ts, which declares Database)', () => {
    expect(declaring.filter((file) => !/(^|\/|-)tables\.ts$/.test(file) && file !== 'src/db/schema.ts')).toEqual([]);
  });

  it('finds builder writes and raw SQL writes', () => {
    const of = (file: string) => writes.filter((w) => w.file === file).map((w) => `${w.how} ${w.table}`);
    expect(of('src/messaging/write-rows.ts')).toContain('builder messages');
    expect(of('src/features/contacts/store.ts')).toContain('sql contact_changes');
  });

  it('names the table of every write', () => {
    expect(writes.filter((w) => w.table === UNNAMED || !owners.has(w.table))).toEqual([]);
  });
});

describe('the scanner', () => {
  const found = (text: string) => writesOf('src/x/y.ts', text).map((w) => `${w.how} ${w.table}`);

  it('reads Kysely’s writes, aliases and all', () => {
    expect(
      found(`db.insertInto('a').values(v); trx.updateTable('b as x').set(s); db.deleteFrom('c'); db.selectFrom('d');`),
    ).toEqual(['builder a', 'builder b', 'builder c']);
    expect(found(`db.deleteFrom(table)`)).toEqual([`builder ${UNNAMED}`]);
  });

  it('reads INSERT, UPDATE and DELETE in sql templates, not upserts’ or locks’ UPDATE', () => {
    expect(found('sql`insert into a (x) select 1`; sql`UPDATE b SET x = 1`; sql`delete from "c" where 1`')).toEqual([
      'sql a',
      'sql b',
      'sql c',
    ]);
    expect(found('sql`select 1 for update`; sql`on conflict do update set x = 1`; sql`version + 1`')).toEqual([]);
    expect(found('sql`insert into ${sql.table(t)} values (1)`')).toEqual([`sql ${UNNAMED}`]);
  });

  it('gives a file to its module: the top folder of src/, or the feature’s folder', () => {
    expect(['src/messaging/send.ts', 'src/features/otp/store.ts', 'src/carriers/smpp/x.ts'].map(moduleOf)).toEqual([
      'messaging',
      'features/otp',
      'carriers',
    ]);
  });
});

describe('each table is written only by the module that declares it', () => {
  it('no module writes a table another module declares', () => {
    const outside = writes
      .filter((w) => owners.get(w.table) !== moduleOf(w.file))
      .filter((w) => !EXCEPTIONS[w.file]?.tables.includes(w.table))
      .map((w) => `${w.file}:${w.line} writes table ${w.table} declared by module ${owners.get(w.table)}`);
    expect(outside).toEqual([]);
  });

  it('keeps no exception that is no longer needed', () => {
    const stale = Object.entries(EXCEPTIONS).flatMap(([file, { tables }]) =>
      tables.filter((table) => !writes.some((w) => w.file === file && w.table === table)).map((t) => `${file} ${t}`),
    );
    expect(stale).toEqual([]);
  });
});
