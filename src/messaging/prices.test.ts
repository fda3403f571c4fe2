import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { afterPoll, PRICES_ENV, priceTools } from '../../test/helpers/prices.js';

/**
 * The precedence of prices, one level at a time. Each test uses its own
 * country-code-52 area (the deployment's prefix list is shared by the file).
 */
describeEngines('prices by destination prefix', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: PRICES_ENV });
  });
  afterAll(() => h.close());
  const { ok, subOf, send, message, balance } = priceTools(() => h);

  it('charges the default channel price when no price is configured (a fresh install)', async () => {
    const a = await h.createAccount(10);
    expect((await send(a.apikey, '8112345678')).credit).toBe(1);
    expect(await balance(a.apikey)).toBe(9);
  });

  it("uses the deployment's longest matching prefix price", async () => {
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '52', '--credits', '0.8');
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5233', '--credits', '0.5');
    await afterPoll();
    const a = await h.createAccount(10);
    const sent = await send(a.apikey, '3312345678');
    expect(sent.credit).toBe(0.5);
    expect(await message(sent.references[0].reference)).toMatchObject({ price_units: 5000, price_prefix: '5233' });
    expect((await send(a.apikey, '4412345678')).credit).toBe(0.8);
    // Another channel has no prefix price: its default.
    expect(await balance(a.apikey)).toBe(8.7);
  });

  it("puts the account's channel price before the deployment's prefix prices", async () => {
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5234', '--credits', '0.4');
    const a = await h.createAccount(10);
    await ok('accounts', 'set', '--email', a.email, '--price-sms', '0.9');
    await afterPoll();
    const sent = await send(a.apikey, '3412345678');
    expect(sent.credit).toBe(0.9);
    expect((await message(sent.references[0].reference)).price_prefix).toBeNull();
  });

  it("puts the account's own prefix prices (longest) before its channel price", async () => {
    const a = await h.createAccount(10);
    await ok('accounts', 'set', '--email', a.email, '--price-sms', '0.9');
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5235', '--credits', '0.3', '--email', a.email);
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '523512', '--credits', '0.2', '--email', a.email);
    await afterPoll();
    expect((await send(a.apikey, '3512345678')).credit).toBe(0.2);
    expect((await send(a.apikey, '3599345678')).credit).toBe(0.3);
    expect((await send(a.apikey, '3312999999')).credit).toBe(0.9);
    // Another account's prefix prices are not this one's.
    const b = await h.createAccount(10);
    expect((await send(b.apikey, '3512345678')).credit).toBe(0.8);
  });

  it("gives a sub-account its own longest prefix price first, then its parent's, then channel prices", async () => {
    const parent = await h.createAccount(100);
    const sub = await subOf(parent, 20);
    const asSub = ['--email', sub.plainEmail, '--parent', parent.email];
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '523712', '--credits', '0.6', '--email', parent.email);
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5237', '--credits', '0.25', ...asSub);
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5238', '--credits', '0.7', '--email', parent.email);
    await ok('accounts', 'set', ...asSub, '--price-sms', '1.2');
    await ok('accounts', 'set', '--email', parent.email, '--price-sms', '1.1');
    await afterPoll();
    // Its own 5237 wins although the parent's 523712 is longer.
    expect((await send(sub.apikey, '3712345678')).credit).toBe(0.25);
    // No own prefix matches: the parent's prefix price, before the sub-account's own channel price.
    expect((await send(sub.apikey, '3812345678')).credit).toBe(0.7);
    // No prefix price of either: its own channel price, then the parent's when it has none.
    expect((await send(sub.apikey, '3912345678')).credit).toBe(1.2);
    const other = await subOf(parent, 5);
    expect((await send(other.apikey, '3912345678')).credit).toBe(1.1);
    expect(await balance(sub.apikey)).toBe(20 - 0.25 - 0.7 - 1.2);
  });

  it('sums a multi-recipient send per recipient, each message keeping its own price', async () => {
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5245', '--credits', '0.1');
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5246', '--credits', '2.5');
    await afterPoll();
    const a = await h.createAccount(10);
    const sent = await send(a.apikey, '4512345678,4612345678,4512345679,8112345678');
    expect(sent.credit).toBe(0.1 + 2.5 + 0.1 + 0.8);
    const prices = await Promise.all(sent.references.map(async (r) => (await message(r.reference)).price_units));
    expect(prices).toEqual([1000, 25000, 1000, 8000]);
    expect(await balance(a.apikey)).toBe(10 - 3.5);
  });

  it('refuses the whole send when the per-destination sum passes the balance', async () => {
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5242', '--credits', '3');
    await afterPoll();
    const a = await h.createAccount(5);
    const r = await h.post('/sms/send', { numbers: '4212345678,4212345679', message: 'Hola' }, a.apikey);
    expect(r.body.code).toBe('sms_07');
    expect(await balance(a.apikey)).toBe(5);
  });

  it('debits parallel sends at their destination prices without ever overdrawing the balance', async () => {
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5247', '--credits', '0.7');
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5248', '--credits', '1.3');
    await afterPoll();
    const a = await h.createAccount(10);
    const replies = await Promise.all(
      Array.from({ length: 12 }, (_, k) =>
        h.post('/sms/send', { numbers: k % 2 ? '4712345678' : '4812345678', message: 'Hola' }, a.apikey),
      ),
    );
    const accepted = replies.filter((r) => r.body.code === 'sms_11');
    expect(replies.every((r) => r.body.code === 'sms_11' || r.body.code === 'sms_07')).toBe(true);
    const charged = accepted.reduce((sum, r) => sum + Math.round(r.body.credit * 10_000), 0);
    expect(charged).toBeLessThanOrEqual(100_000);
    expect(accepted.length).toBeLessThan(12);
    expect(Math.round((await balance(a.apikey)) * 10_000)).toBe(100_000 - charged);
  });

  it('never changes what an accepted message was charged when the price changes', async () => {
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5243', '--credits', '0.5');
    await afterPoll();
    const a = await h.createAccount(10);
    const date = new Date(Date.now() + 3_600_000 - 6 * 3_600_000).toISOString().replace('T', ' ').slice(0, 19);
    const sent = await send(a.apikey, '4312345678', { date });
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5243', '--credits', '2');
    await afterPoll();
    expect(await message(sent.references[0].reference)).toMatchObject({ price_units: 5000, status: 'scheduled' });
    expect(await balance(a.apikey)).toBe(9.5);
    expect((await send(a.apikey, '4312345678')).credit).toBe(2);
  });

  it('answers a sandbox send with no charge, as the spec says, whatever the price', async () => {
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5244', '--credits', '0.5');
    await afterPoll();
    const a = await h.createAccount(10);
    expect((await send(a.apikey, '4412345678', { sandbox: 1 })).credit).toBe(0);
    expect(await balance(a.apikey)).toBe(10);
  });
});
