import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { engines } from '../helpers/harness.js';
import { cliEnv, MAIN, runMensajero, type CliEnv } from '../helpers/cli.js';

/** `mensajero serve` that is expected to refuse: its exit code and everything it printed (killed after 30 s). */
function serveOnce(env: Record<string, string>, args: string[] = []): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, 'serve', ...args], {
      env: { ...env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

for (const engine of engines) {
  describe(`a database restored without its secret (${engine})`, () => {
    let cli: CliEnv;
    let secretKey: string;
    beforeEach(async () => {
      cli = await cliEnv(engine, {}, { migrated: true });
      secretKey = join(cli.env.DATA_DIR, 'secret.key');
      // What an install holds sealed: an account's API key and a carrier's bind password.
      const created = await runMensajero(['accounts', 'create', '--email', 'a@example.com', '--json'], {
        ...cli.env,
        MENSAJERO_PASSWORD: 'a long enough password',
      });
      expect(created.code, created.stderr).toBe(0);
      const carrier = await runMensajero(
        [
          'carriers',
          'add',
          'smpp',
          '--name',
          'telcel',
          '--host',
          '127.0.0.1',
          '--port',
          '2775',
          '--system-id',
          'mx',
          '--password',
          'pw1',
        ],
        cli.env,
      );
      expect(carrier.code, carrier.stderr).toBe(0);
    });
    afterEach(() => cli.cleanup());

    it('serve refuses to start without the secret, says what doctor says, and writes no new secret', async () => {
      rmSync(secretKey);
      const refused = await serveOnce(cli.env);
      expect(refused.code).not.toBe(0);
      expect(refused.output).toContain('no secret');
      expect(refused.output).toContain('API keys, carrier passwords');
      expect(refused.output).not.toContain('mensajero is serving');
      expect(existsSync(secretKey)).toBe(false);

      const doctor = await runMensajero(['doctor', '--json'], cli.env);
      const check = doctor.json.checks.find((c: { name: string }) => c.name === 'secret');
      expect(check.status).toBe('fail');
      expect(refused.output).toContain(check.detail);

      // Any other command too: none seals new data with a secret of its own.
      const command = await runMensajero(['accounts', 'list', '--json'], cli.env);
      expect(command.code).toBe(1);
      expect(command.json.error).toContain('no secret');
      expect(existsSync(secretKey)).toBe(false);
    });

    it('serve refuses a secret that does not open the sealed data, with one process or several', async () => {
      const stored = readFileSync(secretKey, 'utf8').trim();
      rmSync(secretKey);
      const other = 'ab'.repeat(32);
      for (const args of [[], ['--workers', '2']]) {
        const refused = await serveOnce({ ...cli.env, MENSAJERO_SECRET: other }, args);
        expect(refused.code, args.join(' ')).not.toBe(0);
        expect(refused.output).toContain('MENSAJERO_SECRET does not open the stored API keys, carrier passwords');
        expect(refused.output).not.toContain(other);
        expect(refused.output).not.toContain('worker started');
      }
      expect(existsSync(secretKey)).toBe(false);

      // The right secret starts it (and the command above was refused, not broken).
      const listed = await runMensajero(['accounts', 'list', '--json'], { ...cli.env, MENSAJERO_SECRET: stored });
      expect(listed.code, listed.stdout + listed.stderr).toBe(0);
    });
  });
}
