import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../db/engine.js';
import { migrateToLatest } from '../../db/migrate.js';
import { verifyPassword } from '../../lib/passwords.js';
import { cliEnv, MAIN, runMensajero, type CliEnv } from '../../../test/helpers/cli.js';

/** `mensajero <args>` with `input` on standard input. */
function runWithInput(
  args: string[],
  env: Record<string, string>,
  input: string,
): Promise<{ code: number | null; json: any }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.once('exit', (code) => resolve({ code, json: out ? JSON.parse(out) : undefined }));
    child.stdin.end(input);
  });
}

async function storedHash(e: CliEnv, email: string): Promise<string> {
  const db = await openDatabase(e.env.DATABASE_URL);
  try {
    return (
      await db.kysely
        .selectFrom('accounts')
        .select('password_hash')
        .where('email', '=', email)
        .executeTakeFirstOrThrow()
    ).password_hash;
  } finally {
    await db.close();
  }
}

describe('local secrets (SQLite file, CLI passwords)', () => {
  let e: CliEnv;
  beforeAll(async () => {
    e = await cliEnv('sqlite');
  });
  afterAll(() => e.cleanup());

  it('reads the password from standard input, so it never appears in the process list', async () => {
    const r = await runWithInput(
      ['accounts', 'create', '--email', 'stdin@example.com', '--password-stdin', '--json'],
      e.env,
      'from-stdin-123\n',
    );
    expect(r.code).toBe(0);
    expect(await verifyPassword('from-stdin-123', await storedHash(e, 'stdin@example.com'))).toBe(true);
  });

  it('reads the password from MENSAJERO_PASSWORD', async () => {
    const r = await runMensajero(['accounts', 'create', '--email', 'env@example.com', '--json'], {
      ...e.env,
      MENSAJERO_PASSWORD: 'from-env-456',
    });
    expect(r.code).toBe(0);
    expect(await verifyPassword('from-env-456', await storedHash(e, 'env@example.com'))).toBe(true);
  });

  it('refuses to create an account without a password', async () => {
    const r = await runMensajero(['accounts', 'create', '--email', 'none@example.com', '--json'], e.env);
    expect(r.code).not.toBe(0);
    expect(r.json.error).toMatch(/--password-stdin/);
  });

  it('creates the SQLite database and its WAL readable by the owner only', async () => {
    const file = join(e.env.DATA_DIR, 'fresh', 'owner-only.db');
    const db = await openDatabase(`sqlite:${file}`);
    try {
      await migrateToLatest(db);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(`${file}-wal`).mode & 0o777).toBe(0o600);
      expect(statSync(join(e.env.DATA_DIR, 'fresh')).mode & 0o777).toBe(0o700);
    } finally {
      await db.close();
    }
  });
});
