import { afterAll, beforeAll, expect, it } from 'vitest';
import { Command } from 'commander';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import type { CliRunner } from '../../cli/runner.js';
import { otpCommands } from './cli.js';
import { freshPhone, otpClient, recordCarrier } from './testing.js';

/** OTP channels, code formats, company names and the operator's settings command. */
describeEngines('OTP channels and formats', (engine) => {
  let h: Harness;
  let key: string;
  let carrier: ReturnType<typeof recordCarrier>;
  beforeAll(async () => {
    h = await startHarness(engine);
    carrier = recordCarrier(h.ctx);
    key = (await h.createAccount(1000)).apikey;
  });
  afterAll(() => h.close());
  const client = (apikey = key) => otpClient(h, apikey, freshPhone());
  const credit = async (apikey = key) => (await h.post('/credits/consult', {}, apikey)).body.credit as number;

  it('channels: chat-app uses the fixed template, ignores message and company with a warning, needs no instance', async () => {
    const c = client();
    const r = await c.send({ channel: 'chatapp', company: 'Acme', message: '{{code}} {{company}}' });
    expect(r.status).toBe(201);
    expect(r.body.warning).toMatch(/message and company ignored/);
    expect((await c.messages())[0].channel).toBe('chatapp');
    expect(carrier.textsTo(c.fullNumber)).toEqual([
      `${r.body.code} is your verification code. For your security, do not share it with anyone.`,
    ]);
    const plain = await client().send({ channel: 'chatapp' });
    expect(plain.status).toBe(201);
    expect(plain.body.warning).toMatch(/company ignored/);
    const bare = await h.post('/v2/otp', { phone_number: freshPhone(), country_code: '52', channel: 'chatapp' }, key);
    expect(bare.status).toBe(201);
    expect(bare.body.warning).toBeUndefined();
    expect(bare.body.code).toBeUndefined();
  });

  it('channels: voice reads the code character by character, with a custom message too; priced like its channel', async () => {
    const c = client();
    const before = await credit();
    const r = await c.send({
      channel: 'voice',
      code_format: 'alphanumeric',
      code_length: 4,
      message: 'Hello from {{company}}. Your code: {{code}}.',
    });
    expect(r.status).toBe(201);
    const [m] = await c.messages();
    expect(m.channel).toBe('voice');
    expect(carrier.textsTo(c.fullNumber)).toEqual([`Hello from Acme. Your code: ${[...r.body.code].join(', ')}.`]);
    expect(m.text).toBe('Hello from Acme. Your code: *, *, *, *.');
    expect(await credit()).toBe(before - 2);
  });

  it('a transient carrier failure: the code stays queued for the dispatch job and the answer warns', async () => {
    const c = client();
    carrier.setBusy(true);
    try {
      const r = await c.send();
      expect(r.status).toBe(201);
      expect(r.body.warning).toMatch(/retried/);
      expect((await c.messages())[0]).toMatchObject({ stage: 0, status: 'queued' });
      expect((await c.status()).body.state).toBe('pending');
    } finally {
      carrier.setBusy(false);
    }
  });

  it('codes: numeric, letters and alphanumeric of 4 to 10; letters are checked case-insensitively', async () => {
    for (const [format, length, pattern] of [
      ['numeric', 4, /^\d{4}$/],
      ['letters', 10, /^[A-HJ-NP-Z]{10}$/],
      ['alphanumeric', 7, /^[0-9A-HJ-NP-Z]{7}$/],
    ] as const) {
      const c = client();
      const r = await c.send({ code_format: format, code_length: String(length) });
      expect(r.body.code).toMatch(pattern);
      expect((await c.verify(` ${r.body.code.toLowerCase()} `)).status).toBe(200);
    }
  });

  it('company: accents GSM-7 lacks are dropped', async () => {
    const c = client();
    const r = await c.send({ company: "Compañía & O'Neil" });
    expect(r.status).toBe(201);
    expect(carrier.textsTo(c.fullNumber)).toEqual([
      `${r.body.code} is your verification code from Compañia & O'Neil. Do not share it.`,
    ]);
  });

  it('CLI: mensajero otp settings sets, shows and clears the abuse protection', async () => {
    const a = await h.createAccount(0);
    const outputs: Array<Record<string, unknown>> = [];
    const run: CliRunner = async (_opts, action) => {
      outputs.push(await action(h.ctx));
    };
    const exec = (...args: string[]) => {
      const program = new Command().exitOverride();
      otpCommands(program, run);
      return program.parseAsync(['node', 'mensajero', 'otp', 'settings', '--email', a.email, ...args, '--json']);
    };
    await exec();
    await exec('--countries', '52, +1', '--max-per-number-hour', '5');
    await exec('--countries', 'any', '--max-per-number-hour', 'none');
    expect(outputs).toEqual([
      { email: a.email, allowed_countries: 'any', max_per_number_hour: null },
      { email: a.email, allowed_countries: ['52', '1'], max_per_number_hour: 5 },
      { email: a.email, allowed_countries: 'any', max_per_number_hour: null },
    ]);
    await expect(exec('--max-per-number-hour', '-3')).rejects.toThrow(/positive integer/);
    await expect(exec('--countries', 'MX')).rejects.toThrow(/country codes/);
  });
});
