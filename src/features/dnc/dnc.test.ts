import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { listAudit } from '../../audit/service.js';
import { dncCommands, shownPage } from './cli.js';
import { addDoNotContact, DncError, importDoNotContact, listDoNotContact } from './service.js';

/** The do-not-contact list's commands and service: validation, paging, imports checked whole and bounded. */
describeEngines('the do-not-contact list', (engine) => {
  let h: Harness;
  const dir = mkdtempSync(join(tmpdir(), 'dnc-'));
  const mensajero = (...args: string[]) => runCommands(h.ctx, [dncCommands], ['dnc', ...args, '--json']);
  const all = async () => (await listDoNotContact(h.ctx.db, { limit: 1000 })).numbers;
  const file = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  beforeEach(async () => {
    await h.ctx.db.kysely.deleteFrom('do_not_contact').execute();
  });
  afterAll(() => h.close());

  it('add, list and remove print the contract’s JSON; adding twice keeps one entry', async () => {
    expect(await mensajero('add', '--number', '525512345678')).toEqual({ number: '525512345678' });
    expect(await mensajero('add', '--number', ' 525512345678 ')).toEqual({ number: '525512345678' });
    expect(await mensajero('add', '--number', '14155550100')).toEqual({ number: '14155550100' });
    expect(await mensajero('list')).toEqual({ numbers: ['14155550100', '525512345678'] });
    expect(await mensajero('remove', '--number', '14155550100')).toEqual({ removed: true });
    expect(await mensajero('remove', '--number', '14155550100')).toEqual({ removed: false });
    expect(await mensajero('list')).toEqual({ numbers: ['525512345678'] });
  });

  it('refuses what is not a full international number of 8 to 15 digits, with the rule', async () => {
    for (const bad of ['+525512345678', '1234567', '1234567890123456', '0525512345678', '5255-1234-5678', 'abc', '']) {
      const r = await mensajero('add', '--number', bad);
      expect(r.error, bad).toMatch(/is not a full international number: 8 to 15 digits/);
    }
    expect(await mensajero('add', '--number', '12345678')).toEqual({ number: '12345678' });
    expect(await mensajero('add', '--number', '123456789012345')).toEqual({ number: '123456789012345' });
    await expect(addDoNotContact(h.ctx.db, '55 1234')).rejects.toMatchObject({ code: 'dnc_number' });
    await expect(addDoNotContact(h.ctx.db, '55 1234')).rejects.toBeInstanceOf(DncError);
  });

  it('pages with --limit and --after (the last number of the previous page)', async () => {
    for (const n of ['525500000003', '525500000001', '525500000002']) await addDoNotContact(h.ctx.db, n);
    const first = await mensajero('list', '--limit', '2');
    expect(first).toEqual({ numbers: ['525500000001', '525500000002'] });
    expect(await mensajero('list', '--limit', '2', '--after', '525500000002')).toEqual({ numbers: ['525500000003'] });
    expect(await mensajero('list', '--after', '525500000003')).toEqual({ numbers: [] });
    for (const limit of ['0', '1001', 'x']) expect((await mensajero('list', '--limit', limit)).error).toMatch(/limit/);
    expect((await mensajero('list', '--after', 'abc')).error).toMatch(/after/);
    expect(shownPage(first.numbers, 2)).toBe('525500000001\n525500000002\n(more: --after 525500000002)');
    expect(shownPage(['525500000003'], 2)).toBe('525500000003');
    expect(shownPage([], 100)).toBe('(no numbers)');
  });

  it('imports one number per line or a CSV’s first column; a header and blank lines are skipped', async () => {
    const csv = file(
      'list.csv',
      '\uFEFFnumber,name\r\n525511111111,Ana\r\n\r\n"525522222222";x\n14155550100\t\n525511111111\n',
    );
    expect(await mensajero('import', '--file', csv)).toEqual({ imported: 3 });
    expect(await all()).toEqual(['14155550100', '525511111111', '525522222222']);
    // Numbers already listed are not counted again.
    expect(await mensajero('import', '--file', file('again.txt', '525511111111\n525533333333'))).toEqual({
      imported: 1,
    });
    expect((await mensajero('import', '--file', join(dir, 'missing.txt'))).error).toMatch(/cannot read --file/);
  });

  it('refuses a file with a malformed line, naming the line, and writes none of it', async () => {
    const bad = file('bad.txt', '525511111111\n525522222222\n\n55-12\n525533333333\n');
    expect((await mensajero('import', '--file', bad)).error).toMatch(/^line 4: "55-12" is not a full international/);
    const header = file('late-header.txt', '525511111111\nnumber\n');
    expect((await mensajero('import', '--file', header)).error).toMatch(/^line 2: "number"/);
    expect(await all()).toEqual([]);
  });

  it('an import is written in transactions of 1,000 numbers: every number of a long file is listed', async () => {
    const numbers = Array.from({ length: 2_500 }, (_, i) => String(525500000000 + i));
    expect(await mensajero('import', '--file', file('long.txt', numbers.join('\n')))).toEqual({ imported: 2_500 });
    expect((await listDoNotContact(h.ctx.db, { after: '525500002498', limit: 10 })).numbers).toEqual(['525500002499']);
  });

  it('bounds an import by bytes, lines and line length, read as it streams, nothing written', async () => {
    const limits = { bytes: 1_000, lines: 3, lineLength: 40 };
    const lines = (...texts: string[]) =>
      async function* () {
        for (const t of texts) yield Buffer.from(t);
      };
    const refused = (open: () => AsyncIterable<Buffer>, within = limits) =>
      importDoNotContact(h.ctx.db, open, within).catch((e: DncError) => e.code);
    expect(await refused(lines('525511111111\n52551', '1111112\n525511111113\n525511111114'))).toBe('dnc_too_many');
    expect(await refused(lines(`525511111111,${'x'.repeat(40)}\n`))).toBe('dnc_line_too_long');
    // A line with no end in sight is refused once it is longer than the limit, not read to its end.
    let pulled = 0;
    async function* endless() {
      for (;;) {
        pulled++;
        yield Buffer.from('5'.repeat(30));
      }
    }
    expect(await refused(endless)).toBe('dnc_line_too_long');
    expect(pulled).toBe(2);
    expect(await refused(endless2, { ...limits, lines: 1e9 })).toBe('dnc_too_large');
    expect(await all()).toEqual([]);
    expect(await importDoNotContact(h.ctx.db, lines('525511111111\n', '525511111112'), limits)).toEqual({
      imported: 2,
    });
  });

  it('an import interrupted half way leaves an audit entry counting what it wrote; a whole one says finished', async () => {
    const numbers = Array.from({ length: 3_500 }, (_, i) => String(525600000000 + i));
    let opened = 0;
    // The second read (the writing pass) stops after 3,500 lines: the process interrupted mid-import.
    const open = () =>
      (async function* () {
        opened++;
        for (const n of numbers) yield Buffer.from(`${n}\n`);
        if (opened === 2) throw new Error('interrupted');
      })();
    const audit = { actor: 'cli', action: 'dnc.import', target: 'big.csv', detail: { file: 'big.csv' } };
    await expect(importDoNotContact(h.ctx.db, open, undefined, audit)).rejects.toThrow('interrupted');
    const written = (await listDoNotContact(h.ctx.db, { limit: 1000, after: '5256' })).numbers.length;
    expect(written).toBeGreaterThan(0);
    const entries = (await listAudit(h.ctx.db.kysely, { since: 0 })).filter((e) => e.target === 'big.csv');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: 'cli', action: 'dnc.import' });
    expect(entries[0].detail).toEqual({ file: 'big.csv', imported: 3_000, finished: false });
    const rows = await h.ctx.db.kysely
      .selectFrom('do_not_contact')
      .select((e) => e.fn.countAll().as('n'))
      .where('source', '=', 'import')
      .executeTakeFirstOrThrow();
    expect(Number(rows.n)).toBe(3_000);

    const whole = { ...audit, target: 'whole.csv', detail: { file: 'whole.csv' } };
    const lines = async function* () {
      yield Buffer.from(numbers.slice(0, 1_200).join('\n').replaceAll('5256', '5257'));
    };
    expect(await importDoNotContact(h.ctx.db, lines, undefined, whole)).toEqual({ imported: 1_200 });
    const done = (await listAudit(h.ctx.db.kysely, { since: 0 })).filter((e) => e.target === 'whole.csv');
    expect(done.map((e) => e.detail)).toEqual([{ file: 'whole.csv', imported: 1_200, finished: true }]);
  });

  it('the CLI records one dnc.import entry, the import’s own', async () => {
    const numbers = Array.from({ length: 10 }, (_, i) => String(525700000000 + i));
    const path = file('cli.txt', numbers.join('\n'));
    expect(await mensajero('import', '--file', path)).toEqual({ imported: 10 });
    const entries = (await listAudit(h.ctx.db.kysely, { since: 0 })).filter((e) => e.target === path);
    expect(entries.map((e) => [e.action, e.detail])).toEqual([
      ['dnc.import', { file: path, imported: 10, finished: true }],
    ]);
  });
});

/** Short lines without end: only the byte limit stops them. */
async function* endless2() {
  for (let i = 0; ; i++) yield Buffer.from(`${525500000000 + (i % 2)}\n`);
}
