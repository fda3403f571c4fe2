import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, type Harness, type TestAccount } from '../../test/helpers/harness.js';
import {
  contractPrice,
  drawCase,
  expectedUnits,
  LAYERS,
  seeded,
  type PriceCase,
} from '../../test/helpers/price-paths.js';
import { afterPoll, PRICES_ENV, priceTools } from '../../test/helpers/prices.js';
import { ask, bindClient } from '../../test/helpers/smpp-server.js';
import { startSmppHarness } from '../../test/helpers/smpp-server.js';
import { toUnits } from '../accounts/credits.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';
import type { SmppSession } from '../smpp-protocol/pdu.js';
import { addSmppUser } from '../features/smpp-users/service.js';
import { DEPLOYMENT, setPrefixPrice, type PrefixPrice } from './prices.js';
import { setPrice } from './pricing.js';

const SEED = 20261202;
const CASES = 40;

/** A UDH claiming part 1 of 2 of a concatenated message. */
const UDH = Buffer.from([0x05, 0x00, 0x03, 0x11, 0x02, 0x01]);

/**
 * Every path charges Σ parts × each recipient's price by the one precedence
 * of the prices contract: random prefix prices (the account's, its parent's,
 * the deployment's), channel prices, parts and paths (POST /sms/send, SMPP
 * submit_sm and submit_multi, POST /v2/otp), drawn from a fixed seed.
 */
describeEngines('prices: every path charges parts × the price by precedence', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine, { env: PRICES_ENV });
  });
  afterAll(() => h.close());
  const { ok } = priceTools(() => h);
  let users = 0;

  const units = async (id: number) =>
    Number(
      (await h.ctx.db.kysely.selectFrom('accounts').select('credits').where('id', '=', id).executeTakeFirstOrThrow())
        .credits,
    );
  const prefixPrices = (accountId: number, prices: Record<string, number>) =>
    Object.entries(prices).map(([prefix, credits]): PrefixPrice => ({
      accountId,
      channel: 'sms',
      prefix,
      units: toUnits(credits),
    }));

  /** The sending account of a case, with its prices (and its parent's, and the deployment's) set. */
  async function setUp(c: PriceCase): Promise<TestAccount> {
    const top = await h.createAccount(10_000);
    const sender = c.subAccount ? await h.createAccount(10_000) : top;
    // A sub-account is an account with its parent (what POST /manager/subaccount/add writes, without its password hash).
    if (c.subAccount)
      await h.ctx.db.kysely.updateTable('accounts').set({ parent_id: top.id }).where('id', '=', sender.id).execute();
    const rows = [...prefixPrices(sender.id, c.own.prefixes), ...prefixPrices(DEPLOYMENT, c.deployment)];
    if (c.subAccount) rows.push(...prefixPrices(top.id, c.parent.prefixes));
    for (const row of rows) await setPrefixPrice(h.ctx.db.kysely, row);
    if (c.own.channel !== null) await setPrice(h.ctx.db.kysely, sender.id, 'sms', toUnits(c.own.channel));
    if (c.subAccount && c.parent.channel !== null)
      await setPrice(h.ctx.db.kysely, top.id, 'sms', toUnits(c.parent.channel));
    return sender;
  }

  async function smppSession(account: TestAccount): Promise<SmppSession> {
    const systemId = `price${++users}`;
    await addSmppUser(h.ctx.db, account, { systemId, password: 'secret1', throughput: 0 });
    const { session, status } = await bindClient(h.smppPort, systemId, 'secret1', 'transmitter');
    expect(status).toBe(0);
    return session;
  }

  /** Sends the case's message by its path; throws unless every recipient was accepted. */
  async function send(c: PriceCase, account: TestAccount): Promise<void> {
    const national = c.numbers.map((n) => n.slice(2));
    const text = 'a'.repeat(c.length);
    if (c.path === 'http') {
      const r = await h.post(
        '/sms/send',
        { numbers: national.join(','), country_code: '52', message: text },
        account.apikey,
      );
      expect(r.body.code).toBe('sms_11');
      return;
    }
    if (c.path === 'otp') {
      const r = await h.post(
        '/v2/otp',
        { phone_number: national[0], country_code: '52', channel: 'sms', company: 'Acme' },
        account.apikey,
      );
      expect(r.status).toBe(201);
      return;
    }
    const session = await smppSession(account);
    const body = Buffer.from(gsmSeptets(text));
    const message = c.udh
      ? { esm_class: 0x40, message_payload: Buffer.concat([UDH, body]) }
      : { message_payload: body };
    const resp =
      c.path === 'submit_sm'
        ? await ask(session, 'submit_sm', { destination_addr: c.numbers[0], dest_addr_ton: 1, ...message })
        : await ask(session, 'submit_multi', {
            dest_address: c.numbers.map((n) => ({ dest_addr_ton: 1, dest_addr_npi: 1, destination_addr: n })),
            ...message,
          });
    session.close();
    expect(resp.command_status).toBe(0);
    expect(resp.unsuccess_sme ?? []).toEqual([]);
  }

  it(`charges ${CASES} random cases (seed ${SEED}) by the rule`, async () => {
    const random = seeded(SEED);
    const cases = Array.from({ length: CASES }, (_, i) => drawCase(random, i));
    expect(new Set(cases.map((c) => c.path)).size).toBe(4);
    expect(cases.some((c) => c.parts > 1 && c.numbers.length > 1)).toBe(true);
    // Every layer of the precedence prices some recipient.
    const layers = new Set(cases.flatMap((c) => c.numbers.map((n) => contractPrice(c, n).layer)));
    expect([...layers].sort()).toEqual([...LAYERS].sort());
    const senders = [];
    for (const c of cases) senders.push(await setUp(c));
    await afterPoll();
    const charged: number[] = [];
    for (const [i, c] of cases.entries()) {
      const before = await units(senders[i].id);
      await send(c, senders[i]);
      charged.push(before - (await units(senders[i].id)));
    }
    const mismatches = cases
      .map((c, i) => ({ case: i, path: c.path, parts: c.parts, expected: expectedUnits(c), charged: charged[i] }))
      .filter((m) => m.expected !== m.charged);
    expect(mismatches).toEqual([]);
  }, 120_000);

  it("charges SMPP messages of several parts the recipient's prefix price (the attack review's figures)", async () => {
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5299', '--credits', '5');
    const a = await h.createAccount(1_000);
    const own = await h.createAccount(1_000);
    await ok('prices', 'set', '--channel', 'sms', '--prefix', '5299', '--credits', '0.2', '--email', own.email);
    await afterPoll();
    const cost = async (account: TestAccount, parts: number, numbers = ['529912345678']) => {
      const before = await units(account.id);
      await send(
        {
          path: numbers.length > 1 ? 'submit_multi' : 'submit_sm',
          numbers,
          parts,
          udh: false,
          length: parts === 1 ? 10 : parts * 153 - 1,
        } as PriceCase,
        account,
      );
      return (before - (await units(account.id))) / toUnits(1);
    };
    expect([await cost(a, 1), await cost(a, 2), await cost(a, 5)]).toEqual([5, 10, 25]);
    expect(await cost(own, 2)).toBe(0.4);
    expect(await cost(a, 2, ['529912340001', '529912340002', '529912340003'])).toBe(30);
  });
});
