/* Shared setup of the SMPP end-to-end suites (src/carriers/smpp/smpp*.test.ts). */
import { afterAll, expect } from 'vitest';
import { carrierCommands } from '../../src/carriers/cli.js';
import { runCommands } from './cli.js';
import { eventually, type Harness } from './harness.js';
import { TestSmsc, type SmscOptions } from './smsc.js';

/** Fast polling and retries, and webhooks allowed to 127.0.0.1. */
export const SMPP_ENV = {
  CARRIER_POLL_MS: '100',
  DISPATCH_RETRY_MS: '50',
  WEBHOOK_ALLOW_PRIVATE: 'true',
  WEBHOOK_RETRY_BASE_MS: '50',
};

/** The suite's tools over the harness `get` returns; stops every test SMSC after the suite. */
export function smppTools(get: () => Harness) {
  const smscs: TestSmsc[] = [];
  let counter = 0;
  afterAll(async () => {
    for (const s of smscs) await s.stop();
  });

  /** A name not used yet in this suite. */
  const unique = (prefix: string) => `${prefix}${++counter}`;
  const cli = (...args: string[]) => runCommands(get().ctx, [carrierCommands], args);

  /** A test SMSC, a connector bound to it, and a route for `prefix` to it (after `before` connectors, if any). */
  async function carrier(
    options: SmscOptions = {},
    extra: string[] = [],
    route?: { prefix: string; before?: string[] },
  ) {
    const h = get();
    const smsc = await new TestSmsc({ systemId: 'acme', password: 'secret1', ...options }).start();
    smscs.push(smsc);
    const name = unique('c');
    const added = await cli(
      'carriers',
      'add',
      'smpp',
      '--name',
      name,
      '--host',
      '127.0.0.1',
      '--port',
      String(smsc.port),
      '--system-id',
      'acme',
      '--password',
      'secret1',
      ...extra,
    );
    expect(added.error).toBeUndefined();
    if (route)
      expect(
        (
          await cli(
            'routes',
            'add',
            '--channel',
            'sms',
            '--prefix',
            route.prefix,
            '--carriers',
            [...(route.before ?? []), name].join(','),
          )
        ).error,
      ).toBeUndefined();
    await eventually(async () => smsc.binds > 0 && h.ctx.carriers.manager.connector(name)?.available, 10_000);
    if (route)
      await eventually(async () =>
        h.ctx.carriers.manager.routes.some((r) => r.prefix === route.prefix && r.carriers.includes(name)),
      );
    return { smsc, name };
  }

  const send = async (apikey: string, numbers: string, body: Record<string, unknown> = {}) => {
    const r = await get().post('/sms/send', { numbers, message: 'Hola', ...body }, apikey);
    expect(r.body.code).toBe('sms_11');
    return r.body.references.map((x: { reference: string }) => x.reference) as string[];
  };
  const message = (reference: string) =>
    get().ctx.db.kysely.selectFrom('messages').selectAll().where('reference', '=', reference).executeTakeFirstOrThrow();
  const finalMessage = (reference: string, timeoutMs = 10_000) =>
    eventually(async () => ((await message(reference)).stage === 2 ? message(reference) : null), timeoutMs);
  const credit = async (apikey: string) => (await get().post('/credits/consult', {}, apikey)).body.credit;

  return { unique, cli, carrier, send, message, finalMessage, credit };
}
