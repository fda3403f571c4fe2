import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, eventually, startHarness, type Harness } from '../../../test/helpers/harness.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { SMPP_ENV, smppTools } from '../../../test/helpers/smpp-suite.js';
import { formatLocalDate } from '../../lib/time.js';
import { messageCommands } from './cli.js';

describeEngines('messages trace', (engine) => {
  let h: Harness;
  const hits: number[] = [];
  const hook = createServer((req, res) => {
    req.resume();
    hits.push(Date.now());
    res.writeHead(200).end('ok');
  });
  beforeAll(async () => {
    h = await startHarness(engine, { env: SMPP_ENV });
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    hook.close();
    await h.close();
  });
  const { carrier, send, finalMessage, message } = smppTools(() => h);
  const trace = (...args: string[]) => runCommands(h.ctx, [messageCommands], ['messages', 'trace', ...args, '--json']);

  it('finds a message by reference, number or carrier id across accounts, with its whole history', async () => {
    const { smsc, name } = await carrier({ receipt: () => ({ stat: 'UNDELIV', err: '001' }) }, [], {
      prefix: '525581',
    });
    const a = await h.createAccount(10);
    const url = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
    expect((await h.post('/webhook/add', { url, status: '1' }, a.apikey)).body.code).toBe('add_webhook_01');
    const [ref] = await send(a.apikey, '5581000001');
    await finalMessage(ref);
    await eventually(async () => (await message(ref)).carrier !== null);
    await eventually(async () => hits.length > 0);
    const [byReference] = (
      await eventually(async () => {
        const t = await trace('--reference', ref);
        // The receipt can finalise the message before the hand-off's record (route, attempts) commits.
        return t.messages[0]?.webhooks[0]?.attempts.length > 0 && t.messages[0]?.routed ? t : null;
      })
    ).messages;
    expect(byReference).toMatchObject({
      reference: ref,
      account: a.email,
      number: '525581000001',
      status: 'undelivered',
      status_code: 6,
      accepted: { source: expect.any(String) },
      charged: { credits: 1, sandbox: false },
      routed: { carrier: name, reason: 'priority', cost_now: null },
      handed_over: { carrier_id: smsc.submitted[0].messageId },
      receipt: { status_code: 6 },
      refund: null,
      webhooks: [{ type: 'confirmation', state: 'delivered', attempts: [{ http_status: 200 }] }],
    });
    const today = formatLocalDate(Date.now());
    const byNumber = await trace('--number', '525581000001', '--from', today, '--to', today);
    expect(byNumber.messages.map((m: { reference: string }) => m.reference)).toEqual([ref]);
    const byCarrierId = await trace('--carrier-id', smsc.submitted[0].messageId);
    expect(byCarrierId.messages.map((m: { reference: string }) => m.reference)).toEqual([ref]);
    // The SMSC answered in hex: the same id written in decimal (as its receipts may) finds the message too.
    const decimal = BigInt(`0x${smsc.submitted[0].messageId}`).toString(10);
    expect((await trace('--carrier-id', decimal)).messages.map((m: { reference: string }) => m.reference)).toEqual([
      ref,
    ]);
    expect((await trace('--reference', 'nope')).messages).toEqual([]);
  });

  it('shows the refund of a message the carrier refused', async () => {
    await carrier({ answer: () => ({ status: 0x0b }) }, [], { prefix: '525582' });
    const a = await h.createAccount(10);
    const [ref] = await send(a.apikey, '5582000001');
    await finalMessage(ref);
    const [m] = (await trace('--reference', ref)).messages;
    expect(m).toMatchObject({ status: 'refused', status_code: 4, handed_over: null, refund: { credits: 1 } });
  });

  it('refuses a query that is ambiguous or malformed', async () => {
    expect((await trace()).error).toMatch(/one of --reference/);
    expect((await trace('--reference', 'a', '--number', '5255')).error).toMatch(/one of --reference/);
    expect((await trace('--number', '52 55')).error).toMatch(/--number/);
    expect((await trace('--number', '525512345678', '--from', '2026-13-01')).error).toMatch(/--from/);
    expect((await trace('--reference', 'x', '--to', '2026-01-01')).error).toMatch(/go with --number/);
  });
});
