import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { engines, eventually } from '../../test/helpers/harness.js';
import { cliEnv, startServe, type CliEnv } from '../../test/helpers/cli.js';
import { closedPort, doctor, holdPort } from '../../test/helpers/doctor.js';

describe('mensajero doctor: what it reaches', () => {
  let cli: CliEnv;
  beforeEach(async () => {
    cli = await cliEnv('sqlite', {}, { migrated: true });
  });
  afterEach(() => cli.cleanup());

  it('fails on an unreachable database and Redis, and masks their passwords', async () => {
    const [dbPort, redisPort] = [await closedPort(), await closedPort()];
    const r = await doctor({
      ...cli.env,
      PORT: '0',
      DATABASE_URL: `postgres://mensajero:Db-pass%2Fword@127.0.0.1:${dbPort}/mensajero`,
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: `redis://:redis-pass-word@127.0.0.1:${redisPort}`,
    });
    expect(r.code).toBe(1);
    expect(r.checks.database).toMatchObject({ status: 'fail', detail: expect.stringContaining('ECONNREFUSED') });
    expect(r.checks.database.detail).toContain(`postgres://mensajero:***@127.0.0.1:${dbPort}/mensajero`);
    expect(r.checks.redis).toMatchObject({
      status: 'fail',
      detail: expect.stringContaining(`:***@127.0.0.1:${redisPort}`),
    });
    expect(r.checks.carriers.detail).toContain('not checked');
    for (const secret of ['Db-pass', 'Db-pass%2Fword', 'Db-pass/word', 'redis-pass-word'])
      expect(r.stdout).not.toContain(secret);
  });

  it('passes when Redis answers', async () => {
    const r = await doctor({
      ...cli.env,
      PORT: '0',
      RATE_LIMIT_STORE: 'redis',
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    });
    expect(r.checks.redis.status).toBe('ok');
    expect(r.code).toBe(0);
  });

  it('fails when another program holds the HTTP port or the metrics port', async () => {
    const held = await holdPort();
    try {
      const http = await doctor({ ...cli.env, HOST: '127.0.0.1', PORT: String(held.port) });
      expect(http.code).toBe(1);
      expect(http.checks['http port']).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('another program'),
      });

      const metricsEnv = { METRICS_HOST: '127.0.0.1', METRICS_PORT: String(held.port) };
      const metrics = await doctor({ ...cli.env, HOST: '127.0.0.1', PORT: String(await closedPort()), ...metricsEnv });
      expect(metrics.checks['http port'].status).toBe('ok');
      expect(metrics.checks['metrics port']).toMatchObject({
        status: 'fail',
        detail: expect.stringContaining('another program'),
      });
    } finally {
      held.server.close();
    }
  });
});

for (const engine of engines) {
  describe(`mensajero doctor beside a running service (${engine})`, () => {
    let cli: CliEnv;
    beforeEach(async () => {
      cli = await cliEnv(engine, {}, { migrated: true });
    });
    afterEach(() => cli.cleanup());

    it('takes the port a running Mensajero holds as fine and reads its carriers', async () => {
      const service = await startServe(cli.env);
      try {
        const port = new URL(service.base).port;
        // The service reports its connectors' state every CARRIER_POLL_MS: the first report may follow /readyz.
        const r = await eventually(async () => {
          const run = await doctor({ ...cli.env, HOST: '127.0.0.1', PORT: port });
          return run.checks['carrier simulator']?.detail.includes('bound') && run;
        }, 15_000);
        expect(r.checks['http port']).toMatchObject({
          status: 'ok',
          detail: expect.stringContaining('running Mensajero'),
        });
        expect(r.checks['carrier simulator']).toMatchObject({
          status: 'ok',
          detail: expect.stringContaining('bound in 1'),
        });
        expect(r.code, r.stdout).toBe(0);
      } finally {
        service.child.kill('SIGTERM');
        await service.exited;
      }
    });
  });
}
