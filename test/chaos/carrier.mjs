// CARRIER_MODULE for the crash tests: the simulated carrier (delivery reports
// included), except that every batch is first POSTed to CHAOS_CARRIER_URL, a
// recording carrier in the test process that counts each hand-off outside the
// process a test kills. Plain JavaScript: `mensajero serve` loads it as is.
// It reuses the process's built-in simulator, whose reports go through the
// process's carrier sink (a durable job), so nothing here touches the database.
// With CHAOS_ROUTED_PREFIX, numbers starting with it go to the configured
// routes instead (an SMPP connector: the partition test), the rest as above.
// A message whose fence closed is not posted: the simulator refuses it too.
export default function chaosCarrier(ctx) {
  const url = process.env.CHAOS_CARRIER_URL;
  const routedPrefix = process.env.CHAOS_ROUTED_PREFIX;
  const simulator = ctx.carriers.manager.simulator.driver;
  // The routes' driver, taken before this one is put in front of the channels.
  const routes = ctx.carriers.route('sms').driver;
  const simulated = async (batch) => {
    const ids = batch.filter((m) => !m.fence || m.fence.valid).map((m) => m.id);
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ pid: process.pid, ids }),
    });
    if (!res.ok) throw new Error(`carrier answered ${res.status}`);
    return simulator.submit(batch);
  };
  return {
    name: 'chaos',
    channels: simulator.channels,
    messagesPerSecond: Number(process.env.CHAOS_CARRIER_MPS ?? 20000),
    maxBatch: Number(process.env.CHAOS_CARRIER_BATCH ?? 50),
    async submit(batch) {
      const routed = routedPrefix ? batch.filter((m) => m.number.startsWith(routedPrefix)) : [];
      if (routed.length === 0) return simulated(batch);
      const rest = batch.filter((m) => !routed.includes(m));
      const [a, b] = await Promise.all([routes.submit(routed), rest.length > 0 ? simulated(rest) : []]);
      const outcomes = new Map([...routed.map((m, i) => [m, a[i]]), ...rest.map((m, i) => [m, b[i]])]);
      return batch.map((m) => outcomes.get(m));
    },
  };
}
