import { spawn } from 'node:child_process';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../helpers/harness.js';
import { cliEnv, MAIN, runMensajero, startServe, type CliEnv } from '../helpers/cli.js';

/** `mensajero operators create` with the password written to standard input. */
function createOperator(
  env: Record<string, string>,
  email: string,
  password: string,
): Promise<{ code: number | null; stdout: string; json: any }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN, 'operators', 'create', '--email', email, '--json'], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.once('exit', (code) => {
      let json: any;
      try {
        json = JSON.parse(stdout);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, json });
    });
    child.stdin.end(`${password}\n`);
  });
}

describeEngines('mensajero operators create', (engine) => {
  let cli: CliEnv;
  beforeAll(async () => {
    cli = await cliEnv(engine, {}, { migrated: true });
  });
  afterAll(async () => {
    await cli?.cleanup();
  });

  it('creates an operator from standard input who signs in to a running service and sees the accounts', async () => {
    const created = await createOperator(cli.env, 'Root@Example.com', 'operator secret 1');
    expect(created.json).toEqual({ email: 'root@example.com', operator: true });
    expect(created.code).toBe(0);
    expect((await createOperator(cli.env, 'root@example.com', 'another secret')).json.error).toContain('exists');
    expect((await createOperator(cli.env, 'short@example.com', 'short')).json.error).toContain('8 to 128');
    await runMensajero(
      [
        'accounts',
        'create',
        '--email',
        'holder@example.com',
        '--password',
        'holder password',
        '--credits',
        '3',
        '--json',
      ],
      cli.env,
    );

    const serve = await startServe(cli.env);
    try {
      const form = await fetch(`${serve.base}/panel/`);
      const cookie = form.headers.getSetCookie()[0].split(';')[0];
      const token = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1];
      const signin = await fetch(`${serve.base}/panel/signin`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ _csrf: token, email: 'root@example.com', password: 'operator secret 1' }),
      });
      expect(signin.status).toBe(303);
      expect(signin.headers.get('location')).toBe('/panel/operator');
      const session = signin.headers
        .getSetCookie()
        .find((c) => c.startsWith('mns_session='))!
        .split(';')[0];
      const view = await (await fetch(`${serve.base}/panel/operator`, { headers: { cookie: session } })).text();
      expect(view).toContain('data-account="holder@example.com"');
      expect(view).toContain('data-testid="balance"');
    } finally {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
  }, 60_000);
});
