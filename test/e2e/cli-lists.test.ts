import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { cliEnv, runMensajero, type CliEnv } from '../helpers/cli.js';

/**
 * The built command: `accounts list|show`, every list-like command as a table
 * without --json and as its one JSON object with it, and the exit codes of
 * docs/operators/cli.md (2 for an operator mistake, commander's usage errors too).
 */
describeEngines('mensajero lists, tables and exit codes', (engine) => {
  let e: CliEnv;
  const cli = (...args: string[]) => runMensajero(args, e.env);
  beforeAll(async () => {
    e = await cliEnv(engine, {}, { migrated: true });
    for (const [email, credits] of [
      ['alpha@example.com', '5'],
      ['beta@example.com', '0'],
    ])
      expect((await cli('accounts', 'create', '--email', email, '--password', 'pw', '--credits', credits)).code).toBe(
        0,
      );
  }, 60_000);
  afterAll(() => e.cleanup());

  it('accounts list pages and searches; accounts show prints the settings', async () => {
    const all = await cli('accounts', 'list', '--json');
    expect(all.code).toBe(0);
    expect(all.json).toEqual({
      accounts: [
        { id: expect.any(Number), email: 'alpha@example.com', credits: 5, status: 'active', parent_id: null },
        { id: expect.any(Number), email: 'beta@example.com', credits: 0, status: 'active', parent_id: null },
      ],
      page: 1,
      has_more: false,
    });
    const found = await cli('accounts', 'list', '--search', 'BETA', '--json');
    expect(found.json.accounts.map((a: { email: string }) => a.email)).toEqual(['beta@example.com']);
    expect((await cli('accounts', 'list', '--search', '%', '--json')).json.accounts).toEqual([]);
    expect((await cli('accounts', 'list', '--page', '2', '--json')).json).toEqual({
      accounts: [],
      page: 2,
      has_more: false,
    });
    const badPage = await cli('accounts', 'list', '--page', '0', '--json');
    expect(badPage.code).toBe(2);
    expect(badPage.json.error).toMatch(/--page/);

    const text = await cli('accounts', 'list');
    expect(text.json).toBeUndefined();
    expect(text.stdout).toMatch(/^id\s+email\s+credits\s+status\s+parent_id\n/);
    expect(text.stdout).toMatch(/alpha@example\.com\s+5\s+active/);

    const shown = await cli('accounts', 'show', '--email', 'alpha@example.com', '--json');
    expect(shown.json).toMatchObject({
      id: all.json.accounts[0].id,
      email: 'alpha@example.com',
      credits: 5,
      status: 'active',
      parent_id: null,
      webhook_method: 'POST',
      allow_ips: null,
      low_balance: null,
      prices: { sms: 1, rcs: 1.5, chatapp: 0.5, voice: 2 },
      credit_value: expect.any(String),
    });
    const set = await cli('accounts', 'set', '--email', 'alpha@example.com', '--low-balance', '2', '--json');
    expect({ ...set.json }).toEqual({ ...shown.json, low_balance: 2 });
    expect((await cli('accounts', 'show', '--email', 'nobody@example.com', '--json')).code).toBe(2);
  }, 120_000);

  // Tables and exit codes are the runner's, whatever the engine: they run on one (each command is a process).
  if (engine === 'sqlite') {
    it('prints a table without --json for every list-like command', async () => {
      expect((await cli('prices', 'set', '--channel', 'sms', '--prefix', '5255', '--credits', '0.5')).code).toBe(0);
      expect(
        (await cli('carriers', 'add', 'smpp', '--name', 'c1', '--host', '127.0.0.1', '--port', '2775')).code,
      ).not.toBe(0); // --system-id and --password are required
      const added = await cli(
        'carriers',
        'add',
        'smpp',
        '--name',
        'c1',
        '--host',
        '127.0.0.1',
        '--port',
        '2775',
        '--system-id',
        's',
        '--password',
        'pw',
        '--json',
      );
      expect(added.code).toBe(0);
      expect((await cli('carriers', 'costs', 'set', '--name', 'c1', '--prefix', '52', '--cost', '0.01')).code).toBe(0);

      const tables: Array<[string[], RegExp[]]> = [
        [
          ['prices', 'list'],
          [/^channel\s+prefix\s+credits\s+account\n/, /sms\s+5255\s+0\.5\s+-/],
        ],
        [
          ['carriers', 'list'],
          [/^name\s+type\s+enabled/, /c1\s+smpp\s+yes/, /min_delivery_rate/, /demoted/],
        ],
        [
          ['carriers', 'costs', 'list'],
          [/^name\s+prefix\s+cost\n/, /c1\s+52\s+0\.01/],
        ],
        [
          ['smpp-users', 'list'],
          [/^system_id\s+email/, /\(none\)/],
        ],
        [
          ['smpp-users', 'binds'],
          [/^system_id\s+bind\s+address/, /\(none\)/],
        ],
        [['routes', 'list'], [/^sms \(any\) priority: /m]],
        [
          ['carriers', 'status'],
          [
            /^name\s+type\s+state\s+processes\s+binds\s+binds_setting\s+binds_per_process\s+window_in_use\s+submitted/,
            /^c1\s+smpp\s+down\s+0\s+0\s+1\s/m,
          ],
        ],
        [
          ['carriers', 'stats'],
          [/^name\s+submitted\s+delivered\s+failed\s+pending\s+delivery_rate/, /^c1\s+0\s+0\s+0\s+0\s+-\s/m],
        ],
        [['carriers', 'stats', '--by', 'prefix'], [/^name\s+prefix\s+submitted\s+delivered/]],
      ];
      for (const [args, patterns] of tables) {
        const text = await cli(...args);
        expect(text.code, args.join(' ')).toBe(0);
        expect(text.json, args.join(' ')).toBeUndefined();
        for (const p of patterns) expect(text.stdout, args.join(' ')).toMatch(p);
        const json = await cli(...args, '--json');
        expect(Object.keys(json.json ?? {}), args.join(' ')).toHaveLength(1);
      }
    }, 180_000);

    it('exits 2 for an operator mistake and for a usage error, with one JSON object under --json', async () => {
      const by = await cli('carriers', 'stats', '--by', 'foo', '--json');
      expect(by.code).toBe(2);
      expect(by.json).toEqual({ error: '--by is one of carrier, prefix' });
      const missing = await cli('accounts', 'show', '--json');
      expect(missing.code).toBe(2);
      expect(missing.json.error).toMatch(/--email/);
      const unknown = await cli('accounts', 'list', '--colour', '--json');
      expect(unknown.code).toBe(2);
      expect(unknown.json.error).toMatch(/--colour/);
      const notNumber = await cli('accounts', 'credits', '--email', 'alpha@example.com', '--add', 'lots', '--json');
      expect(notNumber.code).toBe(2);
      expect(notNumber.json).toEqual({ error: 'not a number: lots' });
      const plain = await cli('accounts', 'show');
      expect(plain.code).toBe(2);
      expect(plain.stdout).toBe('');
      expect(plain.stderr).toMatch(/--email/);
      expect((await cli('--version')).code).toBe(0);
    }, 120_000);
  }
});
