import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { optoutTools } from '../../../test/helpers/optouts.js';
import { accountCommands } from '../accounts/cli.js';
import { optoutSettings } from './service.js';

/** `mensajero accounts set --optout-exempt-otp on|off --optout-confirmation "text"|none`. */
describeEngines('opt-out settings of an account', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());
  const { subAccountOf } = optoutTools(() => h);
  const set = (email: string, ...args: string[]) =>
    runCommands(h.ctx, [accountCommands], ['accounts', 'set', '--email', email, ...args, '--json']);

  it('default off and no confirmation; set and unset them; --json prints them', async () => {
    const a = await h.createAccount();
    expect((await set(a.email)).optouts).toEqual({ exempt_otp: false, confirmation: null });
    expect((await set(a.email, '--optout-exempt-otp', 'on')).optouts).toEqual({ exempt_otp: true, confirmation: null });
    const text = '  Ya no recibirás mensajes de Acme. Responde ALTA para volver. ';
    expect((await set(a.email, '--optout-confirmation', text)).optouts).toEqual({
      exempt_otp: true,
      confirmation: text.trim(),
    });
    expect((await set(a.email, '--optout-exempt-otp', 'off', '--optout-confirmation', 'none')).optouts).toEqual({
      exempt_otp: false,
      confirmation: null,
    });
    expect(await optoutSettings(h.ctx.db.kysely, a.id)).toEqual({ exemptOtp: false, confirmation: null });
  });

  it('refuses bad values and a sub-account (the settings are its family’s), changing nothing', async () => {
    const a = await h.createAccount();
    const sub = await subAccountOf(a);
    expect((await set(a.email, '--optout-exempt-otp', 'yes')).error).toContain('on or off');
    expect((await set(a.email, '--optout-confirmation', 'x'.repeat(161))).error).toContain('160');
    expect((await set(a.email, '--optout-confirmation', 'a\u0000b')).error).toContain('control');
    expect((await set(sub.email, '--optout-exempt-otp', 'on')).error).toContain('top-level account');
    expect(await optoutSettings(h.ctx.db.kysely, a.id)).toEqual({ exemptOtp: false, confirmation: null });
    // A sub-account's settings show its family's.
    await set(a.email, '--optout-exempt-otp', 'on');
    expect((await set(sub.email)).optouts).toEqual({ exempt_otp: true, confirmation: null });
  });
});
