import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { SilentLink } from '../../../test/helpers/silent-link.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';

const url = process.env.TEST_DATABASE_URL;
const LEASE_MS = 1500;

/**
 * A process whose network to PostgreSQL falls silent stops handing over
 * before anyone else may take its work (its fence: two thirds of a lease after
 * its last renewal), and closes its binds before their leases run out.
 */
describe.runIf(url)('SMPP hand-offs of a process cut off from PostgreSQL', () => {
  let link: SilentLink;
  let h: Harness;
  beforeAll(async () => {
    link = await SilentLink.toPostgres(url!);
    h = await startHarness('postgres', {
      env: {
        ...SMPP_ENV,
        DATABASE_URL: link.through(url!),
        JOB_LEASE_MS: String(LEASE_MS),
        DISPATCH_RETRY_MS: '200',
        PG_STATEMENT_TIMEOUT_MS: '1000',
        PG_CONNECT_TIMEOUT_MS: '300',
      },
    });
  });
  afterAll(async () => {
    link.heal();
    await h?.close();
    await link.stop();
  });
  const { carrier, send, message } = smppTools(() => h);

  it('writes no submit_sm once its claim could not be renewed, and hands the message over once after the heal', async () => {
    let throttling = true;
    let [throttled, accepted] = [0, 0];
    await carrier(
      {
        answer: () => {
          if (throttling) return (throttled++, { status: 0x58 });
          accepted++;
          return 'accept';
        },
      },
      [],
      { prefix: '525541' },
    );
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5541000001');
    // The SMSC throttles: the connector holds the message and retries (100, 200, 400… ms apart).
    await eventually(async () => throttled >= 2);
    link.silence();
    // Well past the fence (2/3 of the lease after the last renewal), the SMSC takes messages again.
    await new Promise((r) => setTimeout(r, LEASE_MS * 1.5));
    throttling = false;
    await new Promise((r) => setTimeout(r, 3000));
    expect(accepted).toBe(0);
    link.heal();
    await eventually(async () => (await message(ref).catch(() => null))?.stage === 1, 20_000);
    expect(accepted).toBe(1);
  });

  it('closes its binds before their leases run out', async () => {
    const { smsc } = await carrier({}, [], { prefix: '525542' });
    expect(smsc.binds).toBe(1);
    link.silence();
    try {
      // Bind leases last 15 s; the fence closes the bind 10 s after its last renewal.
      await eventually(async () => smsc.binds === 0, 14_000, 100);
    } finally {
      link.heal();
    }
  });
});
