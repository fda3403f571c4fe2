/* Helpers for the OTP tests (not part of the service). */
import { randomInt } from 'node:crypto';
import { CHANNELS } from '../../channels.js';
import type { AppContext } from '../../context.js';
import type { OutboundMessage } from '../../messaging/ports.js';

/** The part of the test harness these helpers use (kept structural so the build does not pull test code in). */
interface Reply {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
}
interface Harness {
  ctx: AppContext;
  post(url: string, body: unknown, apikey?: string): Promise<Reply>;
  get(url: string, apikey?: string): Promise<Reply>;
  request(method: string, url: string, opts?: { apikey?: string; body?: unknown }): Promise<Reply>;
}

/** A fresh national number the simulated carrier accepts (never 5559999…). */
export const freshPhone = (): string => `56${String(randomInt(100_000_000)).padStart(8, '0')}`;

/** A number the simulated carrier refuses at submission. */
export const refusedPhone = (): string => `5559999${String(randomInt(1000)).padStart(3, '0')}`;

export function otpClient(h: Harness, apikey: string, phone: string, countryCode = '52') {
  const number = { phone_number: phone, country_code: countryCode };
  const row = () =>
    h.ctx.db.kysely
      .selectFrom('otp_verifications')
      .selectAll()
      .where('phone_number', '=', phone)
      .where('country_code', '=', countryCode)
      .executeTakeFirst();
  return {
    number,
    send: (body: Record<string, unknown> = {}) =>
      h.post('/v2/otp', { ...number, company: 'Acme', code_show: 1, ...body }, apikey),
    verify: (code: string) => h.post('/v2/otp/verify', { ...number, code }, apikey),
    status: () => h.get(`/v2/otp/status?phone_number=${phone}&country_code=${countryCode}`, apikey),
    remove: () => h.request('DELETE', '/v2/otp', { body: number, apikey }),
    row,
    /** Moves the last lock back in time, as if the rotation cooldown after it had passed. */
    elapseLockCooldown: async () => {
      await h.ctx.db.kysely
        .updateTable('otp_verifications')
        .set({ locked_at: 0 })
        .where('phone_number', '=', phone)
        .where('country_code', '=', countryCode)
        .execute();
    },
    /** Moves the last send back in time, as if the cooldown had passed. */
    elapseCooldown: async () => {
      const r = await row();
      await h.ctx.db.kysely
        .updateTable('otp_verifications')
        .set({ last_sent_at: (r!.last_sent_at ?? Date.now()) - 3_600_000 })
        .where('id', '=', r!.id)
        .execute();
    },
    /** Moves the expiry into the past. */
    expire: async () => {
      await h.ctx.db.kysely
        .updateTable('otp_verifications')
        .set({ expires_at: Date.now() - 1000 })
        .where('phone_number', '=', phone)
        .where('country_code', '=', countryCode)
        .execute();
    },
    fullNumber: countryCode + phone,
    messages: () =>
      h.ctx.db.kysely
        .selectFrom('messages')
        .selectAll()
        .where('number', '=', countryCode + phone)
        .orderBy('id')
        .execute(),
  };
}

/** A wrong code of the same shape as `code`. */
export const wrongCode = (code: string): string => (code[0] === '1' ? '2' : '1') + code.slice(1);

/**
 * Puts a recording carrier in front of every channel: it keeps what it was
 * given and hands it to the simulator, or answers a transient failure when told.
 */
export function recordCarrier(ctx: AppContext) {
  const simulator = ctx.carriers.manager.simulator.driver;
  const sent: OutboundMessage[] = [];
  let busy = false;
  ctx.carriers.use({
    name: 'recorder',
    channels: CHANNELS,
    messagesPerSecond: 1_000_000,
    maxBatch: 1000,
    async submit(batch) {
      if (busy) return batch.map(() => ({ ok: false as const, permanent: false, error: 'carrier busy' }));
      sent.push(...batch);
      return simulator.submit(batch);
    },
  });
  return {
    textsTo: (fullNumber: string) => sent.filter((m) => m.number === fullNumber).map((m) => m.text),
    setBusy: (value: boolean) => {
      busy = value;
    },
  };
}
