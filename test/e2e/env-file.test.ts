import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { engines } from '../helpers/harness.js';
import { cliEnv, MAIN, type CliEnv } from '../helpers/cli.js';

/** `mensajero <args>` in `cwd` with exactly `env` (no DATABASE_URL unless given). */
function mensajero(args: string[], env: Record<string, string>, cwd: string) {
  const r = spawnSync(process.execPath, [MAIN, ...args], { env, cwd, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The environment of the test run without the variables a command would read. */
function bareEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env = { ...(process.env as Record<string, string>) };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'MENSAJERO_SECRET', 'INVOCATION_ID']) delete env[name];
  return { ...env, LOG_LEVEL: 'warn', ...extra };
}

for (const engine of engines) {
  describe(`mensajero --env-file (${engine})`, () => {
    let cli: CliEnv;
    let dir: string;
    let url: string;
    let envFile: string;
    beforeEach(async () => {
      cli = await cliEnv(engine);
      dir = cli.env.DATA_DIR;
      // A value with & and $$ that `set -a && . FILE` loses (the assignment runs in the background) or changes.
      url =
        engine === 'sqlite'
          ? `sqlite:${join(dir, 'app&co$$.db')}`
          : `${cli.env.DATABASE_URL}&application_name=mensajero$$cli`;
      envFile = join(dir, 'mensajero.env');
      writeFileSync(envFile, `# as the unit reads it\nDATA_DIR=${dir}\nDATABASE_URL=${url}\n`);
    });
    afterEach(() => cli.cleanup());

    async function migrated(): Promise<boolean> {
      if (engine === 'sqlite') return existsSync(url.slice('sqlite:'.length));
      const client = new pg.Client({ connectionString: url.replace('&application_name=mensajero$$cli', '') });
      await client.connect();
      try {
        // The schema of the test's search_path, read with the same URL the command was given (but its application_name).
        return (await client.query(`SELECT to_regclass('api_keys') IS NOT NULL AS ok`)).rows[0].ok === true;
      } finally {
        await client.end();
      }
    }

    it('reads the file as systemd does: the database of DATABASE_URL with & and $$, over the environment', async () => {
      // A DATABASE_URL already in the environment does not win over the file's (as EnvironmentFile= over Environment=).
      const other = join(dir, 'other.db');
      const r = mensajero(
        ['--env-file', envFile, 'migrate', '--json'],
        bareEnv({ DATABASE_URL: `sqlite:${other}` }),
        dir,
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toBe('');
      expect(await migrated()).toBe(true);
      expect(existsSync(other)).toBe(false);
      expect(existsSync(join(dir, 'data'))).toBe(false);
    });

    it('`set -a && . FILE`, as the docs said, lost that value and used ./data (what --env-file replaces)', () => {
      const r = spawnSync('sh', ['-c', `set -a && . "${envFile}" && printf %s "\${DATABASE_URL-unset}"`], {
        env: bareEnv(),
        encoding: 'utf8',
      });
      expect(r.stdout).not.toBe(url);
    });
  });
}

describe('mensajero --env-file: mistakes, and a command that falls back to the default database', () => {
  let cli: CliEnv;
  beforeEach(async () => {
    cli = await cliEnv('sqlite');
  });
  afterEach(() => cli.cleanup());

  it('refuses --env-file after the command, and stops on a file that is not there', () => {
    const dir = cli.env.DATA_DIR;
    const file = join(dir, 'mensajero.env');
    writeFileSync(file, `DATABASE_URL=sqlite:${join(dir, 'x.db')}\n`);
    const after = mensajero(['migrate', '--env-file', file], bareEnv(), dir);
    expect(after.code).toBe(2);
    expect(after.stderr).toContain('--env-file goes before the command');
    expect(existsSync(join(dir, 'x.db'))).toBe(false);

    const missing = mensajero(['--env-file', join(dir, 'nope.env'), 'migrate'], bareEnv(), dir);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain(join(dir, 'nope.env'));
    expect(existsSync(join(dir, 'data'))).toBe(false);
  });

  it('warns, naming the database, when a command under a systemd unit would use the default SQLite', () => {
    const dir = cli.env.DATA_DIR;
    const unit = bareEnv({ INVOCATION_ID: '0123456789abcdef0123456789abcdef', DATA_DIR: dir });
    const fallback = mensajero(['migrate', '--json'], unit, dir);
    expect(fallback.code, fallback.stderr).toBe(0);
    expect(fallback.stderr).toContain('warning: DATABASE_URL is not set');
    expect(fallback.stderr).toContain(join(dir, 'data', 'mensajero.db'));
    expect(fallback.stderr).toContain('mensajero --env-file /etc/mensajero/mensajero.env');
    expect(JSON.parse(fallback.stdout)).toEqual({ migrated: true });

    const file = join(dir, 'mensajero.env');
    writeFileSync(file, `DATABASE_URL=sqlite:${join(dir, 'service.db')}\n`);
    const read = mensajero(['--env-file', file, 'migrate', '--json'], unit, dir);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stderr).toBe('');
  });
});
