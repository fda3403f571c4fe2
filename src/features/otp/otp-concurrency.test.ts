import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { freshPhone, otpClient, recordCarrier, wrongCode } from './testing.js';

/** OTP under parallel requests: one conditional update per transition, so nothing happens twice. */
describeEngines('OTP concurrency', (engine) => {
  let h: Harness;
  let key: string;
  beforeAll(async () => {
    h = await startHarness(engine);
    recordCarrier(h.ctx);
    key = (await h.createAccount(1000)).apikey;
  });
  afterAll(() => h.close());
  const client = (apikey = key) => otpClient(h, apikey, freshPhone());
  const credit = async (apikey = key) => (await h.post('/credits/consult', {}, apikey)).body.credit as number;

  it('concurrency: two parallel verifies of the right code give one 200 and one 409', async () => {
    const c = client();
    const sent = await c.send();
    const replies = await Promise.all([c.verify(sent.body.code), c.verify(sent.body.code)]);
    expect(replies.map((r) => r.status).sort()).toEqual([200, 409]);
  });

  it('concurrency: 20 parallel wrong codes never consume more than 7 attempts', async () => {
    const c = client();
    const sent = await c.send();
    const replies = await Promise.all(Array.from({ length: 20 }, () => c.verify(wrongCode(sent.body.code))));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(6);
    expect(statuses.filter((s) => s === 429)).toHaveLength(14);
    expect(
      replies
        .filter((r) => r.status === 429)
        .every((r) => r.body.error === 'otp_max_attempts' && r.body.attempts_remaining === 0),
    ).toBe(true);
    expect(await c.row()).toMatchObject({ state: 'locked', attempts_remaining: 0 });
  });

  it('concurrency: a rotation and a verify of the old code in one shared commit: the verify wins whole or the old code counts as wrong', async () => {
    for (let i = 0; i < 6; i++) {
      const c = client();
      const first = await c.send();
      await c.elapseCooldown();
      const [rotated, verified] = await Promise.all([c.send({ code_rotate: true }), c.verify(first.body.code)]);
      const row = await c.row();
      expect(row!.state).toBe('pending');
      expect(row!.round).toBe(2);
      if (verified.status === 200) {
        // The verify committed first: the rotation started a new round after it.
        expect(rotated.status).toBe(201);
        expect(rotated.body.action).toBe('restarted');
        expect(row!.attempts_remaining).toBe(7);
      } else {
        // The rotation committed first: the old code is now a wrong code.
        expect(rotated.status).toBe(200);
        expect(verified.status).toBe(401);
        expect(row!.attempts_remaining).toBe(6);
      }
      expect(rotated.body.code).not.toBe(undefined);
      expect(
        (await c.verify(first.body.code === rotated.body.code ? wrongCode(rotated.body.code) : first.body.code)).status,
      ).toBe(401);
      expect((await c.verify(rotated.body.code)).status).toBe(200);
      expect(await c.messages()).toHaveLength(2);
    }
  });

  it('concurrency: parallel creates for one number make one pending verification and send one code', async () => {
    const c = client();
    const before = await credit();
    const replies = await Promise.all(Array.from({ length: 10 }, () => c.send()));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
    expect(replies.filter((r) => r.status === 429).every((r) => r.body.error === 'otp_throttled')).toBe(true);
    const rows = await h.ctx.db.kysely
      .selectFrom('otp_verifications')
      .selectAll()
      .where('phone_number', '=', c.number.phone_number)
      .execute();
    expect(rows).toHaveLength(1);
    expect(rows[0].state).toBe('pending');
    expect(await c.messages()).toHaveLength(1);
    expect(await credit()).toBe(before - 1);
    const code = replies.find((r) => r.status === 201)!.body.code;
    expect((await c.verify(code)).status).toBe(200);
  });
});
