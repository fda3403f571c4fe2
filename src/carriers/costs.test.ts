import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../test/helpers/harness.js';
import { SMPP_ENV, smppTools } from '../../test/helpers/smpp-suite.js';

/** Two test SMSCs (the `smpp` package as the other side) at different costs: the hand-off records who took it and at what cost. */
describeEngines('carrier costs recorded at hand-off', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { cli, carrier, send, message } = smppTools(() => h);

  const setCost = async (name: string, prefix: string, cost: string) =>
    expect(
      (await cli('carriers', 'costs', 'set', '--name', name, '--prefix', prefix, '--cost', cost)).error,
    ).toBeUndefined();
  const handedOver = (reference: string) =>
    eventually(async () => {
      const m = await message(reference);
      return m.carrier && m.sent_at ? m : null;
    }, 10_000);
  const costsLoaded = () => h.ctx.carriers.manager.refreshNow();

  it("records the connector that took each message and that connector's cost for the destination", async () => {
    const cheap = await carrier({}, [], { prefix: '5233' });
    const dear = await carrier({}, [], { prefix: '5281' });
    await setCost(cheap.name, '52', '0.0123');
    await setCost(cheap.name, '5233', '0.0100');
    await setCost(dear.name, '52', '0.045');
    await costsLoaded();
    const a = await h.createAccount(10);
    const [toCheap] = await send(a.apikey, '3312345678');
    const [toDear] = await send(a.apikey, '8112345678');
    expect(await handedOver(toCheap)).toMatchObject({ carrier: cheap.name, cost: 100, cost_prefix: '5233' });
    expect(await handedOver(toDear)).toMatchObject({ carrier: dear.name, cost: 450, cost_prefix: '52' });
    expect(cheap.smsc.submitted.map((s) => s.destination)).toEqual(['523312345678']);
    expect(dear.smsc.submitted.map((s) => s.destination)).toEqual(['528112345678']);
  });

  it('records the cost of the connector that took it after a failover, not of the first one tried', async () => {
    let refused = 0;
    const busy = await carrier({ answer: () => (refused++, { status: 0x08 }) }, [], { prefix: '5244' });
    const backup = await carrier({}, [], { prefix: '5244', before: [busy.name] });
    await setCost(busy.name, '52', '0.0010');
    await setCost(backup.name, '5244', '0.0300');
    await costsLoaded();
    const a = await h.createAccount(10);
    const [reference] = await send(a.apikey, '4412345678');
    expect(await handedOver(reference)).toMatchObject({ carrier: backup.name, cost: 300, cost_prefix: '5244' });
    expect(refused).toBeGreaterThan(0);
  });

  it('applies a cost change to later hand-offs and never to recorded ones; no cost known is null', async () => {
    const c = await carrier({}, [], { prefix: '5245' });
    const a = await h.createAccount(10);
    const [before] = await send(a.apikey, '4512345678');
    expect(await handedOver(before)).toMatchObject({ carrier: c.name, cost: null, cost_prefix: null });
    await setCost(c.name, '524', '0.02');
    await costsLoaded();
    const [during] = await send(a.apikey, '4512345679');
    expect(await handedOver(during)).toMatchObject({ cost: 200, cost_prefix: '524' });
    await setCost(c.name, '524', '0.03');
    await costsLoaded();
    const [after] = await send(a.apikey, '4512345670');
    expect(await handedOver(after)).toMatchObject({ cost: 300 });
    expect((await message(during)).cost).toBe(200);
  });

  it('charges the cost per part: a text the connector splits in two costs twice', async () => {
    const c = await carrier({}, ['--coding', 'ucs2'], { prefix: '5246' });
    await setCost(c.name, '52', '0.0125');
    await costsLoaded();
    const a = await h.createAccount(10);
    const [short] = await send(a.apikey, '4612345678');
    const [long] = await send(a.apikey, '4612345679', { message: 'Promocion de temporada '.repeat(4) });
    expect(await handedOver(short)).toMatchObject({ parts: 1, cost: 125 });
    expect(await handedOver(long)).toMatchObject({ parts: 2, cost: 250 });
    expect(c.smsc.submitted.filter((s) => s.destination === '524612345679')).toHaveLength(2);
  });

  it('keeps the costs with `carriers costs`: exact decimals, validation, list and remove', async () => {
    const c = await carrier();
    expect(await cli('carriers', 'costs', 'set', '--name', c.name, '--prefix', '52', '--cost', '1.5')).toEqual({
      name: c.name,
      prefix: '52',
      cost: '1.5000',
    });
    await setCost(c.name, '5255', '0.0123');
    for (const bad of ['0.12345', '-1', 'abc', '1e3', ''])
      expect((await cli('carriers', 'costs', 'set', '--name', c.name, '--prefix', '52', '--cost', bad)).error).toMatch(
        /--cost/,
      );
    for (const bad of ['5x', '', '1234567890123456'])
      expect((await cli('carriers', 'costs', 'set', '--name', c.name, '--prefix', bad, '--cost', '1')).error).toMatch(
        /--prefix/,
      );
    expect((await cli('carriers', 'costs', 'set', '--name', 'nobody', '--prefix', '52', '--cost', '1')).error).toMatch(
      /no carrier/,
    );
    expect(await cli('carriers', 'costs', 'list', '--name', c.name)).toEqual({
      costs: [
        { name: c.name, prefix: '52', cost: '1.5000' },
        { name: c.name, prefix: '5255', cost: '0.0123' },
      ],
    });
    expect(await cli('carriers', 'costs', 'remove', '--name', c.name, '--prefix', '52')).toEqual({ removed: true });
    expect(await cli('carriers', 'costs', 'remove', '--name', c.name, '--prefix', '52')).toEqual({ removed: false });
    expect((await cli('carriers', 'costs', 'list', '--name', c.name)).costs).toHaveLength(1);
  });
});
