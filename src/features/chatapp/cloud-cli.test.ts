import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { describeEngines } from '../../../test/helpers/harness.js';
import { cliEnv, runMensajeroJson, type CliEnv } from '../../../test/helpers/cli.js';

// A dozen cold CLI starts, beside other suites on two shared cores.
vi.setConfig({ testTimeout: 120_000 });

describeEngines('chatapp-instances bound to a Cloud API number, in the CLI', (engine) => {
  let e: CliEnv;
  beforeAll(async () => {
    e = await cliEnv(engine, {}, { migrated: true });
  });
  afterAll(() => e.cleanup());

  const cli = (args: string[], input = '') => runMensajeroJson(args, e.env, input);
  const SECRETS = 'access_token=EAAG-instance-token\napp_secret=instance-app-secret\nverify_token=instance-verify\n';

  it('add binds with secrets from standard input, keeps the contract fields, and never prints a secret; bind and unbind change it', () => {
    expect(cli(['accounts', 'create', '--email', 'bound@example.com', '--password', 'secret123']).code).toBe(0);
    const added = cli(
      [
        'chatapp-instances',
        'add',
        '--email',
        'bound@example.com',
        '--cloud-phone-number-id',
        '106540352242922',
        '--cloud-graph-url',
        'http://127.0.0.1:9',
        '--cloud-otp-template',
        'codigo',
        '--cloud-secrets',
        '-',
      ],
      SECRETS,
    );
    expect(added.code, added.out).toBe(0);
    const id = added.json.instance_id;
    expect(added.json).toEqual({
      instance_id: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/),
      status: 'active',
      cloud_phone_number_id: '106540352242922',
      cloud_graph_url: 'http://127.0.0.1:9',
      cloud_graph_version: 'v21.0',
      cloud_otp_template: 'codigo',
      cloud_otp_language: 'es_MX',
      cloud_webhook_path: `/chatapp/instances/${id}/webhook`,
    });

    // A binding without its secrets, or with one missing, creates nothing and names only the missing key.
    const before = cli(['chatapp-instances', 'list', '--email', 'bound@example.com']).json.instances.length;
    const missing = cli(
      [
        'chatapp-instances',
        'add',
        '--email',
        'bound@example.com',
        '--cloud-phone-number-id',
        '999',
        '--cloud-secrets',
        '-',
      ],
      'access_token=EAAG-lonely-token\n',
    );
    expect(missing.code).not.toBe(0);
    expect(missing.out).toMatch(/app_secret is required/);
    expect(
      cli(['chatapp-instances', 'add', '--email', 'bound@example.com', '--cloud-phone-number-id', '999']).out,
    ).toMatch(/--cloud-secrets - is required/);
    // One number, one instance.
    const twice = cli(
      [
        'chatapp-instances',
        'add',
        '--email',
        'bound@example.com',
        '--cloud-phone-number-id',
        '106540352242922',
        '--cloud-secrets',
        '-',
      ],
      SECRETS,
    );
    expect(twice.out).toMatch(/already bound to instance/);
    expect(cli(['chatapp-instances', 'list', '--email', 'bound@example.com']).json.instances).toHaveLength(before);

    // Rebinding changes settings and keeps the stored secrets unless new ones are given.
    const rebound = cli([
      'chatapp-instances',
      'bind',
      '--email',
      'bound@example.com',
      '--instance',
      id,
      '--cloud-graph-version',
      'v22.0',
    ]);
    expect(rebound.json).toMatchObject({
      instance_id: id,
      cloud_phone_number_id: '106540352242922',
      cloud_graph_version: 'v22.0',
    });
    const plain = cli(['chatapp-instances', 'add', '--email', 'bound@example.com']);
    expect(plain.json).toEqual({ instance_id: expect.any(String), status: 'active' });
    expect(
      cli(
        [
          'chatapp-instances',
          'bind',
          '--email',
          'bound@example.com',
          '--instance',
          plain.json.instance_id,
          '--cloud-secrets',
          '-',
        ],
        SECRETS,
      ).out,
    ).toMatch(/--cloud-phone-number-id is required/);

    const unbound = cli(['chatapp-instances', 'unbind', '--email', 'bound@example.com', '--instance', id]);
    expect(unbound.json).toEqual({ instance_id: id, status: 'active' });
    const listed = cli(['chatapp-instances', 'list', '--email', 'bound@example.com']);
    expect(listed.json.instances.map((i: { instance_id: string }) => i.instance_id)).toEqual([
      id,
      plain.json.instance_id,
    ]);

    const all = [added.out, missing.out, twice.out, rebound.out, unbound.out, listed.out].join('\n');
    for (const secret of ['EAAG-instance-token', 'instance-app-secret', 'instance-verify', 'EAAG-lonely-token'])
      expect(all).not.toContain(secret);
  });
});
