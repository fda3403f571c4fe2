// CARRIER_MODULE for the crash tests: the simulated carrier (delivery reports
// included), except that every batch is first POSTed to CHAOS_CARRIER_URL, a
// recording carrier in the test process that counts each hand-off outside the
// process a test kills. Plain JavaScript: `mensajero serve` loads it as is.
// It reuses the process's built-in simulator, whose reports go through the
// process's carrier sink (a durable job), so nothing here touches the database.
export default function chaosCarrier(ctx) {
  const url = process.env.CHAOS_CARRIER_URL;
  const simulator = ctx.carriers.manager.simulator.driver;
  return {
    name: 'chaos',
    channels: simulator.channels,
    messagesPerSecond: Number(process.env.CHAOS_CARRIER_MPS ?? 20000),
    maxBatch: Number(process.env.CHAOS_CARRIER_BATCH ?? 50),
    async submit(batch) {
      const res = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ pid: process.pid, ids: batch.map((m) => m.id) }),
      });
      if (!res.ok) throw new Error(`carrier answered ${res.status}`);
      return simulator.submit(batch);
    },
  };
}
