import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines } from '../../../test/helpers/harness.js';
import { cliEnv, runMensajeroJson, type CliEnv } from '../../../test/helpers/cli.js';

describeEngines('provider connectors in the CLI', (engine) => {
  let e: CliEnv;
  beforeAll(async () => {
    e = await cliEnv(engine, {}, { migrated: true });
  });
  afterAll(() => e.cleanup());

  const cli = (args: string[], input = '') => runMensajeroJson(args, e.env, input);

  it('adds WhatsApp and TwiML connectors with secrets from standard input, never printing them', async () => {
    const secrets = 'access_token=EAAG-secret-token\napp_secret=app-secret-1\nverify_token=verify-1\n';
    const wa = cli(
      [
        'carriers',
        'add',
        'whatsapp-cloud',
        '--name',
        'wa',
        '--phone-number-id',
        '106540352242922',
        '--otp-template',
        'codigo',
        '--secrets',
        '-',
      ],
      secrets,
    );
    expect(wa.json).toEqual({
      name: 'wa',
      type: 'whatsapp-cloud',
      enabled: true,
      phone_number_id: '106540352242922',
      graph_url: 'https://graph.facebook.com',
      graph_version: 'v21.0',
      otp_template: 'codigo',
      otp_language: 'es_MX',
      messages_per_second: 80,
    });
    const voice = cli(
      [
        'carriers',
        'add',
        'twiml-voice',
        '--name',
        'calls',
        '--account-sid',
        'AC123',
        '--caller',
        '+525500000000',
        '--secrets',
        '-',
      ],
      'auth_token=tok-secret\n',
    );
    expect(voice.json).toMatchObject({
      name: 'calls',
      type: 'twiml-voice',
      account_sid: 'AC123',
      caller: '+525500000000',
      voice: 'Polly.Mia',
      language: 'es-MX',
    });

    // Refusals name the missing keys, never a value.
    const missing = cli(
      ['carriers', 'add', 'whatsapp-cloud', '--name', 'wa2', '--phone-number-id', '1', '--secrets', '-'],
      'access_token=EAAG-other-secret\n',
    );
    expect(missing.code).not.toBe(0);
    expect(missing.out).toMatch(/app_secret is required/);

    const all = [wa.out, voice.out, missing.out, cli(['carriers', 'list']).out].join('\n');
    for (const secret of ['EAAG-secret-token', 'app-secret-1', 'verify-1', 'tok-secret', 'EAAG-other-secret'])
      expect(all).not.toContain(secret);
  });
});
