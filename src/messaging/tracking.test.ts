import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { parse } from '../http/validate.js';
import { z } from 'zod';
import { writeMessages } from './write.js';
import { newReadTokens, readLink, ReadConfirmation, recordReadTrackings } from './tracking.js';

describeEngines('read-confirmation links', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { worker: false });
  });
  afterAll(() => h.close());

  it('records each opening of a message link and redirects to the url', async () => {
    const a = await h.createAccount(5);
    const [token] = newReadTokens(1);
    const link = readLink(h.ctx, token);
    const res = await h.ctx.db.kysely.transaction().execute(async (trx) => {
      const r = await writeMessages(trx, h.ctx, {
        accountId: a.id,
        channel: 'sms',
        source: 'sms',
        recipients: [{ countryCode: '52', number: '525512345678', text: `Hola ${link}` }],
        text: 'Hola',
      });
      await recordReadTrackings(trx, a.id, { url: 'https://example.com/promo', contact: 7 }, [
        { token, messageId: r.messageIds[0] },
      ]);
      return r;
    });
    const path = new URL(link).pathname;
    const first = await h.get(path);
    expect(first.status).toBe(302);
    expect(first.headers.location).toBe('https://example.com/promo');
    await h.get(path);
    const row = await h.ctx.db.kysely
      .selectFrom('read_trackings')
      .selectAll()
      .where('token', '=', token)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ message_id: res.messageIds[0], contact_id: 7, reads: 2 });
    expect(row.first_read_at).toBeLessThanOrEqual(row.last_read_at!);
    expect((await h.get('/r/nope')).status).toBe(404);
    expect((await h.get('/r/%00bad')).body.code).toBe('tracking_01');
  });

  it('validates read_confirmation as an object or a JSON string', () => {
    const Schema = z.object({ read_confirmation: ReadConfirmation });
    expect(
      parse(Schema, { read_confirmation: { url: 'https://a.example/x', contact: '3' } }).read_confirmation,
    ).toEqual({ url: 'https://a.example/x', contact: 3 });
    expect(parse(Schema, { read_confirmation: '{"url":"http://a.example"}' }).read_confirmation).toEqual({
      url: 'http://a.example/',
    });
    expect(parse(Schema, {}).read_confirmation).toBeUndefined();
    for (const bad of [
      { url: 'ftp://x' },
      { url: 'nota url' },
      'garbage',
      { contact: 1 },
      { url: 'https://a.example', contact: 'x' },
    ]) {
      expect(() => parse(Schema, { read_confirmation: bad })).toThrow(
        expect.objectContaining({ code: 'read_confirmation_01' }),
      );
    }
  });
});
