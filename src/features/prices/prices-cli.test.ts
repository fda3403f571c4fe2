import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { PRICES_ENV, priceTools } from '../../../test/helpers/prices.js';
import { PriceBook, pricesFor } from '../../messaging/prices.js';

/** `prices set|list|remove` and `accounts set --credit-value`: what they print, what they refuse, how fast a change applies. */
describeEngines('prices and credit values on the command line', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: PRICES_ENV });
  });
  afterAll(() => h.close());
  const { cli, ok, subOf } = priceTools(() => h);

  it('prints the price it set, the deployment as account null, and lists and removes them', async () => {
    const a = await h.createAccount(1);
    expect(await ok('prices', 'set', '--channel', 'sms', '--prefix', '5255', '--credits', '0.5')).toEqual({
      channel: 'sms',
      prefix: '5255',
      credits: 0.5,
      account: null,
    });
    expect(
      await ok('prices', 'set', '--channel', 'voice', '--prefix', '52', '--credits', '1.25', '--email', a.email),
    ).toEqual({ channel: 'voice', prefix: '52', credits: 1.25, account: a.email });
    // Setting it again replaces it.
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5255', '--credits', '0.75');
    expect((await ok('prices', 'list')).prices).toEqual([
      { channel: 'sms', prefix: '5255', credits: 0.75, account: null },
      { channel: 'voice', prefix: '52', credits: 1.25, account: a.email },
    ]);
    expect((await ok('prices', 'list', '--email', a.email)).prices).toHaveLength(1);
    expect(await ok('prices', 'remove', '--channel', 'voice', '--prefix', '52', '--email', a.email)).toEqual({
      removed: true,
    });
    expect(await ok('prices', 'remove', '--channel', 'voice', '--prefix', '52', '--email', a.email)).toEqual({
      removed: false,
    });
    expect(await ok('prices', 'remove', '--channel', 'sms', '--prefix', '5255')).toEqual({ removed: true });
  });

  it('names a sub-account with --parent and shows it by its own email', async () => {
    const parent = await h.createAccount(10);
    const sub = await subOf(parent);
    const set = await ok(
      'prices',
      'set',
      '--channel',
      'sms',
      '--prefix',
      '5233',
      '--credits',
      '0.2',
      '--email',
      sub.plainEmail,
      '--parent',
      parent.email,
    );
    expect(set.account).toBe(sub.plainEmail);
    expect((await ok('prices', 'list', '--email', parent.email)).prices).toEqual([]);
  });

  it('refuses a bad channel, prefix, price or account with a clear error', async () => {
    const set = (...args: string[]) => cli('prices', 'set', ...args);
    expect((await set('--channel', 'fax', '--prefix', '52', '--credits', '1')).error).toMatch(/--channel/);
    for (const prefix of ['', '52a', '+52', '1234567890123456'])
      expect((await set('--channel', 'sms', '--prefix', prefix, '--credits', '1')).error).toMatch(/--prefix/);
    for (const credits of ['-1', 'abc', '0.00001', '1000001', '1e2'])
      expect((await set('--channel', 'sms', '--prefix', '52', '--credits', credits)).error).toMatch(/--credits/);
    expect(
      (await set('--channel', 'sms', '--prefix', '52', '--credits', '1', '--email', 'no@example.com')).error,
    ).toMatch(/no account/);
  });

  it('sets the credit value of an account, shows the default otherwise, and refuses a float-like amount', async () => {
    const a = await h.createAccount(1);
    expect((await ok('accounts', 'set', '--email', a.email)).credit_value).toBe('1.0000');
    expect((await ok('accounts', 'set', '--email', a.email, '--credit-value', '0.0725')).credit_value).toBe('0.0725');
    const sub = await subOf(a);
    // A sub-account without its own is valued as its parent.
    expect((await ok('accounts', 'set', '--email', sub.plainEmail, '--parent', a.email)).credit_value).toBe('0.0725');
    expect((await ok('accounts', 'set', '--email', a.email, '--credit-value', 'default')).credit_value).toBe('1.0000');
    for (const bad of ['-1', '0.12345', 'NaN', '1e-3'])
      expect((await cli('accounts', 'set', '--email', a.email, '--credit-value', bad)).error).toMatch(/--credit-value/);
  });

  it("reaches another process's cached prices within CARRIER_POLL_MS", async () => {
    // Another process: its own cache of the prices, as src/app/boot.ts builds one per process.
    const book = new PriceBook(h.config.CARRIER_POLL_MS);
    const a = await h.createAccount(1);
    const price = async () => (await pricesFor(h.ctx.db.kysely, book, a.id, 'sms', ['528112345678'])).prices[0];
    expect(await price()).toEqual({ units: 10_000, prefix: null });
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5281', '--credits', '0.3');
    await eventually(async () => (await price()).units === 3_000, 2_000);
    expect(await price()).toEqual({ units: 3_000, prefix: '5281' });
    await ok('prices', 'remove', '--channel', 'sms', '--prefix', '5281');
    await eventually(async () => (await price()).units === 10_000, 2_000);
  });
});
