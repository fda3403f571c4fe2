import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { Command } from 'commander';
import { describeEngines } from '../../../test/helpers/harness.js';
import { cliEnv, type CliEnv } from '../../../test/helpers/cli.js';
import { loadConfig } from '../../config.js';
import { accountCommands } from '../accounts/cli.js';
import { runCli } from '../../app/run.js';
import { startService, type RunningService } from '../../app/serve.js';
import { chatappCli } from './cli.js';

/**
 * The chatapp-instances commands through the real CLI runner (commander
 * parsing, runCli, --json output) against a database that a running
 * service shares, as docs/operators/providers.md describes.
 */
describeEngines('mensajero chatapp-instances', (engine) => {
  let e: CliEnv;
  let service: RunningService;
  beforeAll(async () => {
    e = await cliEnv(engine, { LOG_LEVEL: 'silent' }, { migrated: true });
    service = await startService(loadConfig(e.env), { listen: false, worker: false });
  });
  afterAll(async () => {
    await service.stop();
    await e.cleanup();
  });

  async function mensajero(args: string[]): Promise<{ stdout: string; json: any; exitCode: number }> {
    const savedEnv = process.env;
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      out.push(String(chunk));
      return true;
    });
    process.env = e.env;
    try {
      const program = new Command('mensajero').exitOverride();
      accountCommands(program, runCli);
      chatappCli(program, runCli);
      await program.parseAsync(args, { from: 'user' });
    } finally {
      write.mockRestore();
      process.env = savedEnv;
    }
    const exitCode = Number(process.exitCode ?? 0);
    process.exitCode = undefined;
    const stdout = out.join('');
    return { stdout, json: JSON.parse(stdout), exitCode };
  }

  it('add prints exactly {"instance_id": "…", "status": "active"}, and the instance sends at once', async () => {
    const account = await mensajero([
      'accounts',
      'create',
      '--email',
      'chat@example.com',
      '--password',
      'secret123',
      '--credits',
      '5',
      '--json',
    ]);
    expect(account.exitCode, account.stdout).toBe(0);
    const added = await mensajero(['chatapp-instances', 'add', '--email', 'chat@example.com', '--json']);
    expect(added.exitCode, added.stdout).toBe(0);
    expect(added.stdout.trim().split('\n')).toHaveLength(1);
    expect(Object.keys(added.json)).toEqual(['instance_id', 'status']);
    expect(added.json).toEqual({ instance_id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/), status: 'active' });

    const send = (instance: string) =>
      service.app.inject({
        method: 'POST',
        url: '/chatapp/send',
        headers: { apikey: account.json.apikey },
        payload: { instance_id: instance, number: '5512345678', message: 'Hola' },
      });
    expect((await send(added.json.instance_id)).json().code).toBe('whatsapp_21');

    const listed = await mensajero(['chatapp-instances', 'list', '--email', 'chat@example.com', '--json']);
    expect(listed.json).toEqual({ instances: [{ instance_id: added.json.instance_id, status: 'active' }] });

    const disabled = await mensajero([
      'chatapp-instances',
      'disable',
      '--email',
      'chat@example.com',
      '--instance',
      added.json.instance_id,
      '--json',
    ]);
    expect(disabled.json).toEqual({ instance_id: added.json.instance_id, status: 'inactive' });
    expect((await send(added.json.instance_id)).json().code).toBe('whatsapp_03');
    const enabled = await mensajero([
      'chatapp-instances',
      'enable',
      '--email',
      'chat@example.com',
      '--instance',
      added.json.instance_id,
      '--json',
    ]);
    expect(enabled.json).toEqual({ instance_id: added.json.instance_id, status: 'active' });
    expect((await send(added.json.instance_id)).json().code).toBe('whatsapp_21');
  });

  it('fails with one JSON error object for an unknown account or instance', async () => {
    const unknown = await mensajero(['chatapp-instances', 'add', '--email', 'nobody@example.com', '--json']);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.json).toEqual({ error: expect.stringContaining('nobody@example.com') });
    await mensajero(['accounts', 'create', '--email', 'other@example.com', '--password', 'secret123', '--json']);
    const missing = await mensajero([
      'chatapp-instances',
      'disable',
      '--email',
      'other@example.com',
      '--instance',
      'nope',
      '--json',
    ]);
    expect(missing.exitCode).toBe(2);
    expect(missing.json.error).toContain('nope');
  });
});
