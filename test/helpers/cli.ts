import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { Command } from 'commander';
import type { EngineName } from './harness.js';
import type { AppContext } from '../../src/context.js';
import type { CliRunner } from '../../src/cli/runner.js';
import { clonePgTemplate, copySqliteTemplate } from './template-db.js';

export const MAIN = resolve(import.meta.dirname, '../../dist/bundle/main.js');

export interface CliEnv {
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * Environment for running the built `mensajero` command against a fresh database of the engine: empty, or with
 * `migrated` a copy of the test process's migrated one (template-db.ts), so the first command has nothing to migrate.
 */
export async function cliEnv(
  engine: EngineName,
  extra: Record<string, string> = {},
  { migrated = false }: { migrated?: boolean } = {},
): Promise<CliEnv> {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-cli-'));
  let url = `sqlite:${join(dir, 'cli.db')}`;
  let schema: string | undefined;
  if (engine === 'sqlite' && migrated) await copySqliteTemplate(join(dir, 'cli.db'));
  if (engine === 'postgres') {
    schema = `c_${randomBytes(6).toString('hex')}`;
    if (!migrated || !(await clonePgTemplate(schema))) {
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await client.connect();
      await client.query(`CREATE SCHEMA ${schema}`);
      await client.end();
    }
    const u = new URL(process.env.TEST_DATABASE_URL!);
    u.searchParams.set('options', `-c search_path=${schema}`);
    url = u.toString();
  }
  return {
    env: {
      ...(process.env as Record<string, string>),
      DATABASE_URL: url,
      DATA_DIR: dir,
      LOG_LEVEL: 'warn',
      // Off as in the harness (testConfig): tests that send one number many messages.
      DESTINATION_MAX_PER_NUMBER_HOUR: '0',
      DESTINATION_MAX_SAME_TEXT_HOUR: '0',
      ...extra,
    },
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
      if (!schema) return;
      const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

/** Runs `mensajero <args>` and parses stdout as JSON when it is. */
export function runMensajero(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolvePromise) => {
    execFile(process.execPath, [MAIN, ...args], { env, timeout: 30_000 }, (error, stdout, stderr) => {
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolvePromise({ code: error ? ((error as any).code ?? 1) : 0, stdout, stderr, json });
    });
  });
}

/** Runs `mensajero <args> --json` synchronously with `input` on standard input: exit code, both outputs together, stdout parsed. */
export function runMensajeroJson(
  args: string[],
  env: Record<string, string>,
  input = '',
): { code: number | null; out: string; json: any } {
  const r = spawnSync(process.execPath, [MAIN, ...args, '--json'], { env, input, encoding: 'utf8', timeout: 30_000 });
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { code: r.status, out: r.stdout + r.stderr, json };
}

/**
 * Starts `mensajero serve` on a port the system picks (PORT=0: a port chosen
 * here and released before the child binds it could be taken meanwhile, which
 * gave EADDRINUSE), reads the port from the "mensajero is serving" log line,
 * and waits until /readyz answers. `main`: the script to run, the built bundle unless another install's.
 */
export async function startServe(
  env: Record<string, string>,
  args: string[] = [],
  main = MAIN,
): Promise<{ child: ChildProcess; base: string; exited: Promise<number | null>; output: () => string }> {
  const child = spawn(process.execPath, [main, 'serve', ...args], {
    env: { ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let log = '';
  let port: number | undefined;
  child.stdout!.on('data', (d) => {
    log += d;
    port ??= servingPort(log);
  });
  child.stderr!.on('data', (d) => (log += d));
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (port !== undefined) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}/readyz`);
        if (r.ok) break;
      } catch {
        /* not up yet */
      }
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`mensajero serve did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, base: `http://127.0.0.1:${port}`, exited, output: () => log };
}

/** The port in the service's "mensajero is serving" JSON log line, once printed. */
function servingPort(log: string): number | undefined {
  for (const line of log.split('\n')) {
    if (!line.includes('mensajero is serving')) continue;
    try {
      const port = (JSON.parse(line) as { port?: unknown }).port;
      if (typeof port === 'number' && port > 0) return port;
    } catch {
      /* a partial line: wait for the rest */
    }
  }
  return undefined;
}

/**
 * Runs `mensajero <args>` in this process against `ctx`, with the commands the
 * given registrars add, as the real runner would, and returns what --json
 * prints: the result, or `{ error }` when the command fails.
 */
export async function runCommands(
  ctx: AppContext,
  registrars: Array<(program: Command, run: CliRunner) => void>,
  args: string[],
): Promise<any> {
  let printed: unknown = null;
  const run: CliRunner = async (_opts, action) => {
    try {
      printed = await action(ctx);
    } catch (err) {
      printed = { error: (err as Error).message };
    }
  };
  const program = new Command('mensajero').exitOverride();
  for (const register of registrars) register(program, run);
  await program.parseAsync(['node', 'mensajero', ...args]);
  return JSON.parse(JSON.stringify(printed));
}
