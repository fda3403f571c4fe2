import { writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { accountCommands } from '../accounts/cli.js';
import { CliError } from '../../cli/runner.js';
import { parseLandlineFile, smsCommands } from './cli.js';
import { runCommands } from '../../../test/helpers/cli.js';

describe('landline file format', () => {
  it('reads country_code,prefix[,description] lines, skipping a header, blanks and comments', () => {
    expect(
      parseLandlineFile(
        'country_code,prefix,description\n# fijos\n52,5550,CDMX fijo\n\n52,33123\r\n1,212,New York, NY\n',
      ),
    ).toEqual([
      { countryCode: '52', prefix: '5550', description: 'CDMX fijo' },
      { countryCode: '52', prefix: '33123', description: null },
      { countryCode: '1', prefix: '212', description: 'New York, NY' },
    ]);
  });
  it.each(['52;5550', 'mx,5550', '52,55a', '52,', '52,12345678901'])('refuses %j', (line) =>
    expect(() => parseLandlineFile(line)).toThrow(CliError),
  );
});

describeEngines('sms operator commands', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  /** Runs `mensajero <args> --json` in process against the harness database; returns what it prints. */
  const mensajero = (args: string[]) => runCommands(h.ctx, [accountCommands, smsCommands], [...args, '--json']);

  it('senders add prints {"sender": NAME, "rcs": false} and the sender works for SMS, --rcs for RCS', async () => {
    const a = await h.createAccount(10);
    expect(await mensajero(['senders', 'add', '--email', a.email, '--sender', 'TIENDA'])).toEqual({
      sender: 'TIENDA',
      rcs: false,
    });
    expect(
      (await h.post('/sms/send', { numbers: '5512345678', message: 'x', channel: 2, sender: 'TIENDA' }, a.apikey)).body
        .code,
    ).toBe('sms_38');
    expect(await mensajero(['senders', 'add', '--email', a.email, '--sender', 'TIENDA', '--rcs'])).toEqual({
      sender: 'TIENDA',
      rcs: true,
    });
    expect(
      (await h.post('/sms/send', { numbers: '5512345678', message: 'x', channel: 2, sender: 'TIENDA' }, a.apikey)).body
        .code,
    ).toBe('sms_11');
    expect((await mensajero(['senders', 'add', '--email', a.email, '--sender', 'DEMASIADO LARGO'])).error).toMatch(
      /1 to 11/,
    );
    expect((await mensajero(['senders', 'add', '--email', 'nobody@example.com', '--sender', 'X'])).error).toMatch(
      /no account/,
    );
  });

  it('landlines import loads the plan that sms_19 uses', async () => {
    const a = await h.createAccount(10);
    const dir = mkdtempSync(join(tmpdir(), 'landlines-'));
    const file = join(dir, 'plan.csv');
    writeFileSync(file, 'country_code,prefix,description\n52,812345,Monterrey fijo\n');
    expect(await mensajero(['landlines', 'import', '--file', file, '--replace'])).toEqual({ imported: 1, total: 1 });
    expect((await h.post('/sms/send', { numbers: '8123456789', message: 'x' }, a.apikey)).body.code).toBe('sms_19');
    expect((await mensajero(['landlines', 'import', '--file', join(file, 'missing')])).error).toMatch(/cannot read/);
    rmSync(dir, { recursive: true, force: true });
  });

  it('accounts set --price-<channel> sets the account prices and prints them', async () => {
    const a = await h.createAccount(10);
    const out = await mensajero([
      'accounts',
      'set',
      '--email',
      a.email,
      '--price-sms',
      '0.5',
      '--price-rcs',
      '2',
      '--price-chatapp',
      '0.1',
      '--price-voice',
      '3',
    ]);
    expect(out.prices).toEqual({ sms: 0.5, rcs: 2, chatapp: 0.1, voice: 3 });
    expect((await h.post('/sms/send', { numbers: '5512345678,5587654321', message: 'x' }, a.apikey)).body.credit).toBe(
      1,
    );
    expect((await mensajero(['accounts', 'set', '--email', a.email, '--price-sms', '-1'])).error).toMatch(
      /--price-sms/,
    );
    expect((await mensajero(['accounts', 'set', '--email', a.email, '--price-sms', '0.00001'])).error).toMatch(
      /--price-sms/,
    );
    const fresh = await h.createAccount(1);
    expect((await mensajero(['accounts', 'set', '--email', fresh.email])).prices).toEqual({
      sms: 1,
      rcs: 1.5,
      chatapp: 0.5,
      voice: 2,
    });
  });
});
