import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';
import { decodeMessage } from '../../smpp-protocol/encoding.js';
import { otpClient } from './testing.js';

/** How long the carrier keeps its one window place with the first message: past the 5 s an OTP request waits. */
const HOLD_MS = 6_500;

/**
 * An OTP code that waits in its carrier's line longer than the request waits for the hand-over: the request answers
 * with the code queued, the code reaches the carrier once the line frees, and only then is its stored text masked.
 */
describeEngines('an OTP code handed over after the request answered', (engine) => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
  });
  afterAll(() => h.close());
  const { carrier, send } = smppTools(() => h);

  it('answers queued while the code waits in the line, hands it over later and masks its text then', async () => {
    // One place in the line (window 1, one bind), which the first message keeps until its answer, HOLD_MS later.
    const { smsc } = await carrier({ responseDelayMs: HOLD_MS }, ['--window', '1'], { prefix: '525524' });
    const account = await h.createAccount(100);
    await send(account.apikey, '5524900100');
    await eventually(async () => smsc.arrivals.length === 1, 10_000, 10);
    // Later messages are answered at once: only the first one holds the line.
    smsc.options.responseDelayMs = 0;

    const c = otpClient(h, account.apikey, '5524900101');
    const r = await c.send();
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.warning).toContain('The carrier did not take the code at once: it is queued and will be retried.');
    const code: string = r.body.code;
    expect(code).toMatch(/^\d{6}$/);
    // Answered while the code still waited for its place: not at the carrier yet, its text not masked yet.
    const [waiting] = await c.messages();
    expect(waiting.stage).toBe(0);
    expect(waiting.text).toContain(code);
    expect(smsc.arrivals.map((a) => a.destination)).not.toContain(c.fullNumber);

    // The first message answered, the code goes out in clear to the carrier, and the stored text is then masked.
    const submitted = await eventually(
      async () => smsc.submitted.find((s) => s.destination === c.fullNumber),
      HOLD_MS + 10_000,
    );
    expect(decodeMessage(submitted.shortMessage, submitted.dataCoding, submitted.esmClass, false).text).toBe(
      `${code} is your verification code from Acme. Do not share it.`,
    );
    const masked = await eventually(async () => {
      const [m] = await c.messages();
      return m.text.includes(code) ? null : m;
    }, 10_000);
    expect(masked.text).toBe('****** is your verification code from Acme. Do not share it.');
    expect(masked.stage).toBeGreaterThanOrEqual(1);
  }, 60_000);
});
