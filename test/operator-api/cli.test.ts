import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { cliEnv, runMensajero, type CliEnv } from '../helpers/cli.js';

describeEngines('operator-tokens and audit commands', (engine) => {
  let cli: CliEnv;
  const run = (...args: string[]) => runMensajero([...args, '--json'], cli.env);
  beforeAll(async () => {
    cli = await cliEnv(engine, {}, { migrated: true });
  });
  afterAll(async () => {
    await cli?.cleanup();
  });

  it('adds a token (printed once), lists tokens without it, revokes one', async () => {
    const added = await run('operator-tokens', 'add', '--name', 'deploy', '--read-only');
    expect(added.code).toBe(0);
    expect(added.json).toMatchObject({ id: 1, name: 'deploy', read_only: true });
    expect(added.json.token).toMatch(/^mop_[\w-]{43}$/);
    expect((await run('operator-tokens', 'add', '--name', 'deploy')).code).toBe(2);
    const listed = await run('operator-tokens', 'list');
    expect(listed.json).toEqual({
      tokens: [{ id: 1, name: 'deploy', read_only: true, created_at: expect.any(String), last_used_at: null }],
    });
    expect(listed.stdout).not.toContain(added.json.token);
    expect((await run('operator-tokens', 'revoke', '--id', '1')).json).toEqual({ revoked: true });
    expect((await run('operator-tokens', 'revoke', '--id', '1')).code).toBe(2);
    expect((await run('operator-tokens', 'list')).json).toEqual({ tokens: [] });
  });

  it('records every CLI change but not reads, newest first, without secrets', async () => {
    const created = await runMensajero(
      ['accounts', 'create', '--email', 'cli@example.com', '--password', 'hunter2hunter2', '--credits', '3', '--json'],
      cli.env,
    );
    expect(created.code).toBe(0);
    expect((await run('accounts', 'credits', '--email', 'cli@example.com', '--add', '2')).code).toBe(0);
    expect((await run('prices', 'list')).code).toBe(0);
    expect((await run('accounts', 'credits', '--email', 'cli@example.com', '--add', '-100')).code).toBe(2);
    // An addition past the balance ceiling (100,000,000 credits) is refused, as the operator API refuses it.
    const ceiling = await run('accounts', 'credits', '--email', 'cli@example.com', '--add', '100000000');
    expect(ceiling.code).toBe(2);
    expect(ceiling.stdout + ceiling.stderr).toContain('the balance cannot pass 100000000 credits');
    const { json } = await run('audit', 'list', '--actor', 'cli');
    const actions = json.entries.map((e: any) => e.action);
    expect(actions).toEqual(['accounts.credits', 'accounts.create', 'operator-tokens.revoke', 'operator-tokens.add']);
    const credits = json.entries[0];
    expect(credits).toMatchObject({
      actor: 'cli',
      target: 'cli@example.com',
      detail: { email: 'cli@example.com', add: 2 },
    });
    expect(credits.address).toBeNull();
    expect(Date.parse(credits.at)).toBeGreaterThan(Date.now() - 600_000);
    const text = JSON.stringify(json);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain(created.json.apikey);
    expect(text).not.toMatch(/password/i);
  });

  it('filters by --since and --actor, refusing a bad --since', async () => {
    expect((await run('audit', 'list', '--since', '1m')).json.entries.length).toBeGreaterThan(0);
    expect((await run('audit', 'list', '--since', '2999-01-01')).json.entries).toEqual([]);
    expect((await run('audit', 'list', '--actor', 'token:nobody')).json.entries).toEqual([]);
    expect((await run('audit', 'list', '--since', 'yesterday')).code).toBe(2);
  });
});
