import { describe, expect, it } from 'vitest';
import { engines } from '../helpers/harness.js';
import { chaosFull, chaosScale } from './scale.js';
import { BINDS, partitionRun, type Cut, type HandOff, type PartitionSize } from './partition-run.js';

/**
 * A cluster that survives its own network: two `mensajero serve` processes A
 * and B on one PostgreSQL schema; A reaches PostgreSQL, the SMSC and the
 * recording carrier, and the test reaches A, through SilentLinks (TCP
 * forwarders that drop bytes both ways without closing, like a failed switch;
 * no namespaces or root needed). In the middle of a campaign A is cut off —
 * from everything (a full cut) or from PostgreSQL only — then healed. Counted
 * at the carriers: nothing lost, charged once, a message handed twice only if
 * A had written it to a carrier before its fence closed (src/lib/fence.ts),
 * nothing handed by A from then until the heal nor after it for what B had
 * handed, never more than --binds sessions at the SMSC when only PostgreSQL
 * was lost, every send to B answered during the cut, and A's /readyz 503.
 *
 * PostgreSQL only: on SQLite the database is a file of the process, with no
 * network between them to cut.
 */
const size: PartitionSize = {
  total: chaosScale(600, 6000),
  perRequest: chaosScale(50, 500),
  leaseMs: chaosScale(2000, 5000),
  beforeCutMs: chaosScale(1000, 4000),
  cutMs: chaosScale(6000, 25_000),
  simulatorMps: chaosScale(60, 400),
  smppThroughput: chaosScale(25, 100),
  answerDelayMs: 300,
};
const RUNS = chaosFull ? 3 : 1;
/** A write already on its way when the fence closed still arrives: the time to cross the loopback and a busy event loop. */
const TRANSIT_MS = 500;

type Run = Awaited<ReturnType<typeof partitionRun>>;

const percentile = (xs: number[], p: number) =>
  xs.length === 0 ? 0 : [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))];

function byNumber(handOffs: HandOff[]): Map<string, HandOff[]> {
  const map = new Map<string, HandOff[]>();
  for (const h of handOffs) map.set(h.number, [...(map.get(h.number) ?? []), h]);
  return map;
}

/** The figures of one run, as the issue reported them. */
function figures(r: Run) {
  const fenceClosedAt = r.cutAt + Math.floor((r.size.leaseMs * 2) / 3) + TRANSIT_MS;
  const handed = byNumber(r.handOffs);
  const twice = [...handed].filter(([, hs]) => hs.length > 1);
  const fromA = r.handOffs.filter((h) => h.by === 'A');
  const aAfterHealOfB = fromA.filter(
    (h) => h.at >= r.healAt && (handed.get(h.number) ?? []).some((x) => x.by === 'B' && x.at <= h.at),
  );
  const takenOver = r.handOffs.filter((h) => h.by === 'B' && h.at > r.cutAt && r.inFlight.has(h.number));
  const charged = r.messages.reduce((sum, m) => sum + m.price_units, 0);
  return {
    fenceClosedAt,
    twice,
    figures: {
      cut: r.cut,
      messages: r.messages.length,
      lost: r.messages.filter((m) => m.stage < 1 || !handed.has(m.number)).length,
      chargedOnce: r.credits === r.initialCredits - charged,
      handedAtCut: r.handedAtCut,
      handedByA: fromA.length,
      smppByA: fromA.filter((h) => h.number.startsWith('52553')).length,
      inFlightAtCut: r.inFlight.size,
      twice: twice.length,
      twiceNotWrittenByABeforeFence: twice.filter(
        ([n, hs]) => !r.inFlight.has(n) || !hs.some((h) => h.by === 'A' && h.at <= fenceClosedAt),
      ).length,
      aFenceToHeal: fromA.filter((h) => h.at > fenceClosedAt && h.at < r.healAt).length,
      aAfterHeal: fromA.filter((h) => h.at >= r.healAt).length,
      aAfterHealOfB: aAfterHealOfB.length,
      bTakeover: takenOver.length,
      bTakeoverMs: takenOver.length ? Math.max(...takenOver.map((h) => h.at)) - r.cutAt : 0,
      bSends: r.during.latencies.length + r.during.failed.length,
      bFailed: r.during.failed.length,
      bP50Ms: percentile(r.during.latencies, 50),
      bP99Ms: percentile(r.during.latencies, 99),
      maxBinds: r.maxBinds,
      readyzA: r.during.readyz.status,
      readyzMs: r.during.readyz.ms,
      deadlocks: r.deadlocks.length,
      delivered: r.messages.filter((m) => m.status === 'delivered').length,
      webhooksTwice: [...r.hooks.values()].filter((n) => n > 1).length,
    },
  };
}

async function partition(cut: Cut, run: number) {
  const r = await partitionRun(cut, size);
  const f = figures(r);
  console.info('chaos partition', JSON.stringify({ run, ...f.figures }));
  if (f.figures.deadlocks > 0) console.info('deadlocks', JSON.stringify(r.deadlocks));
  const unexplained = f.twice.filter(
    ([n, hs]) => !r.inFlight.has(n) || !hs.some((h) => h.by === 'A' && h.at <= f.fenceClosedAt),
  );
  // What a failure of the first check below needs to be understood: each hand-off's process and time from the cut.
  if (unexplained.length > 0)
    console.info(
      'handed twice, unexplained',
      JSON.stringify({
        fenceMs: f.fenceClosedAt - r.cutAt,
        healMs: r.healAt - r.cutAt,
        twice: unexplained.map(([n, hs]) => ({
          number: n,
          inFlightAtCut: r.inFlight.has(n),
          handOffs: hs.map((h) => ({ by: h.by, ms: h.at - r.cutAt })),
        })),
      }),
    );

  // Nothing lost, charged once.
  expect(r.messages).toHaveLength(r.references.length);
  expect(f.figures.lost).toBe(0);
  expect(f.figures.chargedOnce).toBe(true);
  // Twice only what A had written to a carrier before its fence closed, and that was claimed at the cut.
  expect(f.figures.twiceNotWrittenByABeforeFence).toBe(0);
  expect(f.twice.length).toBeLessThanOrEqual(r.inFlight.size);
  // A hands nothing over from its fence closing to the heal, and after it nothing B had handed.
  expect(f.figures.aFenceToHeal).toBe(0);
  expect(f.figures.aAfterHealOfB).toBe(0);
  // The SMSC can count A's bind as gone only when the database is what A lost.
  if (cut === 'postgres') expect(r.maxBinds).toBeLessThanOrEqual(BINDS);
  // B answered every send during the cut; A said it was not ready.
  expect(r.during.failed).toEqual([]);
  expect(f.figures.bSends).toBeGreaterThan(0);
  expect(r.during.readyz.status).toBe(503);
  // Locks are taken in one order: no deadlock. Asserted at full size (`npm run chaos`), reported in `npm test`.
  if (chaosFull) expect(r.deadlocks).toEqual([]);
}

describe.skipIf(!engines.includes('postgres'))('chaos: a process cut off from the network [postgres]', () => {
  for (let run = 1; run <= RUNS; run++) {
    it(`full cut (database, SMSC, carrier, clients), run ${run}`, () => partition('full', run), 900_000);
    it(`PostgreSQL-only cut, run ${run}`, () => partition('postgres', run), 900_000);
  }
});
