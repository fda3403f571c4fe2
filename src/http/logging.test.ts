import { afterAll, beforeAll, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadConfig } from '../config.js';
import { startService, type RunningService } from '../app/serve.js';
import { insertAccount } from '../accounts/store.js';
import { logRedactPaths } from '../context.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

let lines = '';
let service: RunningService;
let apikey: string;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mensajero-log-'));
  const sink = new Writable({
    write(chunk, _enc, cb) {
      lines += chunk.toString();
      cb();
    },
  });
  const log = pino({ level: 'trace', redact: { paths: logRedactPaths, censor: '[redacted]' } }, sink);
  service = await startService(
    loadConfig({ DATABASE_URL: `sqlite:${join(dir, 'db')}`, DATA_DIR: dir } as NodeJS.ProcessEnv),
    {
      log,
      listen: false,
      extraApiRoutes(api) {
        api.post('/test/boom', async (request) => {
          request.log.info({ body: request.body }, 'handling');
          throw new Error('boom');
        });
      },
    },
  );
  ({ apikey } = await insertAccount(service.ctx.db.kysely, service.ctx.secrets.keyEncryption, {
    email: 'log@example.com',
    passwordHash: 'x',
  }));
});
afterAll(async () => {
  await service.stop();
  rmSync(dir, { recursive: true, force: true });
});

it('never writes an API key, a password or a code to the log', async () => {
  await service.app.inject({ method: 'POST', url: '/credits/consult', headers: { apikey } });
  await service.app.inject({ method: 'POST', url: `/credits/consult?apikey=${apikey}` });
  await service.app.inject({ method: 'POST', url: '/credits/consult', headers: { token: apikey } });
  const r = await service.app.inject({
    method: 'POST',
    url: '/test/boom',
    headers: { apikey },
    payload: { password: 'hunter2-secret', code: '493817', apikey },
  });
  expect(r.statusCode).toBe(500);
  expect(lines).toContain('unexpected error');
  expect(lines).toContain('handling');
  expect(lines).not.toContain(apikey);
  expect(lines).not.toContain('hunter2-secret');
  expect(lines).not.toContain('493817');
});

it("keeps unrelated fields named code, such as a database error's", () => {
  service.ctx.log.error(
    { err: Object.assign(new Error('invalid byte sequence'), { code: '22021' }) },
    'database refused',
  );
  expect(lines).toMatch(/"code":"22021"/);
});
