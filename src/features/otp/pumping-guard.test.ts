import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, secondProcess, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { recordCarrier } from './testing.js';

type Service = Awaited<ReturnType<typeof secondProcess>>;

/**
 * The pumping guard as an attacker meets it: codes to thousands of numbers of one range, none verified, while the
 * same customer's honest users elsewhere verify 80 % of theirs. Two services share the database, as two processes.
 */
describeEngines('OTP pumping guard', (engine) => {
  let h: Harness;
  let other: Service;
  let sent: ReturnType<typeof recordCarrier>;
  beforeAll(async () => {
    h = await startHarness(engine, { env: { RATE_LIMIT_PER_SECOND: '100000' } });
    sent = recordCarrier(h.ctx);
    other = await secondProcess(h);
  });
  afterAll(async () => {
    await other?.stop();
    await h?.close();
  });

  let serial = 0;
  /** A new national number starting with `range` (three digits after 5). */
  const numberIn = (range: string) => `${range}${String(++serial).padStart(7, '0')}`;
  const post = (process: 0 | 1, url: string, body: object, apikey: string) =>
    process === 0
      ? h.post(url, body, apikey)
      : other.app.inject({ method: 'POST', url, headers: { apikey }, payload: body }).then((r) => ({
          status: r.statusCode,
          body: JSON.parse(r.body),
        }));
  const newCode = (apikey: string, phone: string, process: 0 | 1 = 0) =>
    post(process, '/v2/otp', { phone_number: phone, country_code: '52', company: 'Acme' }, apikey);
  const codeSentTo = (phone: string) => /\d{4,}/.exec(sent.textsTo(`52${phone}`).at(-1)!)![0];
  const credit = async (apikey: string) => (await h.post('/credits/consult', {}, apikey)).body.credit as number;
  const blocks = () => h.ctx.db.kysely.selectFrom('otp_prefix_blocks').selectAll().orderBy('id').execute();

  it('attack: 2,000 numbers of one range, none verified, are stopped after 30 codes; honest ranges verifying 80 % pass', async () => {
    const { apikey } = await h.createAccount(10_000);
    const honestRanges = ['562', '563', '564', '565'];
    let accepted = 0;
    let honest = 0;
    // The first 200 attack codes alternate between the two processes, with honest traffic between them.
    for (let i = 0; i < 200; i++) {
      const attack = await newCode(apikey, numberIn('561'), (i % 2) as 0 | 1);
      if (attack.status === 201) accepted++;
      else expect(attack.body).toMatchObject({ error: 'otp_prefix_blocked', success: false });
      if (i % 4 !== 0) continue;
      const phone = numberIn(honestRanges[i % honestRanges.length]);
      const code = await newCode(apikey, phone);
      expect(code.status).toBe(201);
      honest++;
      // Four honest users in five type their code (verified through the other process).
      if (honest % 5 !== 0)
        expect(
          (
            await post(
              0,
              '/v2/otp/verify',
              { phone_number: phone, country_code: '52', code: codeSentTo(phone) },
              apikey,
            )
          ).status,
        ).toBe(200);
    }
    expect(accepted).toBe(h.config.OTP_PUMPING_MIN_CODES);
    const before = await credit(apikey);
    // The rest of the attack, 50 at a time: all refused, nothing charged.
    for (let i = 200; i < 2000; i += 50) {
      const replies = await Promise.all(
        Array.from({ length: 50 }, (_, k) => newCode(apikey, numberIn('561'), (k % 2) as 0 | 1)),
      );
      expect(replies.filter((r) => r.status !== 429 || r.body.error !== 'otp_prefix_blocked')).toEqual([]);
    }
    expect(await credit(apikey)).toBe(before);
    // Honest traffic is untouched, in its ranges as in the blocked one for another customer.
    for (const range of honestRanges) expect((await newCode(apikey, numberIn(range))).status).toBe(201);
    const neighbour = await h.createAccount(100);
    expect((await newCode(neighbour.apikey, numberIn('561'))).status).toBe(201);
    const [block] = await blocks();
    expect(block).toMatchObject({ prefix: '52561', created: 30, verified: 0 });
    expect(Number(block.until) - Number(block.since)).toBe(h.config.OTP_PUMPING_BLOCK_SECONDS * 1000);
    const episode = await h.ctx.db.kysely
      .selectFrom('alert_episodes')
      .selectAll()
      .where('type', '=', 'otp_pumping')
      .executeTakeFirstOrThrow();
    expect(JSON.parse(episode.details)).toMatchObject({
      type: 'otp_pumping',
      scope: 'account',
      prefix: '52561',
      created: 30,
      verified: 0,
    });
    const metrics = (await h.get('/metrics')).body as string;
    expect(metrics).toMatch(/mensajero_otp_pumping_blocks\{scope="account"\} 1/);
  }, 180_000);

  it('a prefix blocked for three families is blocked for every family', async () => {
    const families = [await h.createAccount(100), await h.createAccount(100), await h.createAccount(100)];
    const range = '566';
    for (const [n, family] of families.entries()) {
      for (let i = 0; i < 30; i++) expect((await newCode(family.apikey, numberIn(range))).status).toBe(201);
      expect((await newCode(family.apikey, numberIn(range))).body.error).toBe('otp_prefix_blocked');
      expect((await blocks()).filter((b) => b.prefix === '52566' && b.root_account_id === null)).toHaveLength(
        n === 2 ? 1 : 0,
      );
    }
    const fourth = await h.createAccount(100);
    const refused = await newCode(fourth.apikey, numberIn(range));
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('otp_prefix_blocked');
    const deployment = (await blocks()).find((b) => b.prefix === '52566' && b.root_account_id === null)!;
    expect(deployment).toMatchObject({ created: 90, verified: 0 });
  }, 180_000);

  it('sandbox requests and code_show codes never count, nor the verification of a code_show code', async () => {
    const { apikey } = await h.createAccount(100);
    for (let i = 0; i < 40; i++) {
      const body = { phone_number: numberIn('567'), country_code: '52', company: 'Acme' };
      expect((await h.post('/v2/otp', { ...body, sandbox: 1 }, apikey)).status).toBe(201);
      const shown = { ...body, phone_number: numberIn('567') };
      const test = await h.post('/v2/otp', { ...shown, code_show: 1 }, apikey);
      expect(test.status).toBe(201);
      if (i % 2 === 0)
        expect((await h.post('/v2/otp/verify', { ...shown, code: test.body.code }, apikey)).status).toBe(200);
    }
    const phone = numberIn('567');
    expect((await newCode(apikey, phone)).status).toBe(201);
    const counts = () =>
      h.ctx.db.kysely
        .selectFrom('otp_prefix_counts')
        .select((eb) => [eb.fn.sum<number>('created').as('created'), eb.fn.sum<number>('verified').as('verified')])
        .where('prefix', '=', '52567')
        .executeTakeFirstOrThrow();
    expect(await counts()).toMatchObject({ created: expect.anything() });
    expect([Number((await counts()).created), Number((await counts()).verified)]).toEqual([1, 0]);
    // The real code's verification counts.
    expect(
      (await h.post('/v2/otp/verify', { phone_number: phone, country_code: '52', code: codeSentTo(phone) }, apikey))
        .status,
    ).toBe(200);
    expect(Number((await counts()).verified)).toBe(1);
    expect((await blocks()).filter((b) => b.prefix === '52567')).toHaveLength(0);
  });
});
