import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, type Harness } from '../../../test/helpers/harness.js';
import { runCommands } from '../../../test/helpers/cli.js';
import { ask, bindClient, smppCustomer, startSmppHarness } from '../../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../../smpp-protocol/encoding.js';
import { messageCommands } from './cli.js';

describeEngines('messages trace: a message a customer submitted over SMPP', (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine);
  });
  afterAll(() => h.close());

  it('names the SMPP user that accepted it', async () => {
    const c = await smppCustomer(h, 100, {});
    const { session, status } = await bindClient(h.smppPort, c.systemId, c.password);
    expect(status).toBe(0);
    const resp = await ask(session, 'submit_sm', {
      destination_addr: '525512345678',
      dest_addr_ton: 1,
      short_message: Buffer.from(gsmSeptets('Hola')),
    });
    expect(resp.command_status).toBe(0);
    const traced = await runCommands(h.ctx, [messageCommands], ['messages', 'trace', '--reference', resp.message_id]);
    expect(traced.messages[0].accepted.by).toEqual({ kind: 'smpp', system_id: c.systemId });
  });
});
