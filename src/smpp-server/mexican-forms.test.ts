import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEngines, type Harness } from '../../test/helpers/harness.js';
import { ask, bindClient, smppCustomer, startSmppHarness } from '../../test/helpers/smpp-server.js';
import { gsmSeptets } from '../smpp-protocol/encoding.js';

/** submit_sm's destination_addr in Mexico's old forms (044/045, 521) is the Mexican number, as /sms/send takes it. */
describeEngines("SMPP server: Mexico's old number forms", (engine) => {
  let h: Harness & { smppPort: number };
  beforeAll(async () => {
    h = await startSmppHarness(engine);
  });
  afterAll(() => h.close());

  it('sends 044/045 + 10 digits and 521 + 10 digits to 52 + the 10 digits, whatever the TON', async () => {
    const c = await smppCustomer(h, 100);
    const { session, status } = await bindClient(h.smppPort, c.systemId, c.password);
    expect(status).toBe(0);
    const submit = (destination_addr: string, dest_addr_ton: number) =>
      ask(session, 'submit_sm', { destination_addr, dest_addr_ton, short_message: Buffer.from(gsmSeptets('Hola')) });
    const written = [
      ['0445512345671', 0],
      ['0455512345672', 0],
      ['5215512345673', 0],
      ['5215512345674', 1],
      ['+5215512345675', 1],
      ['0445512345676', 1],
      ['044 55 1234 5677', 0],
    ] as const;
    const numbers: string[] = [];
    for (const [address, ton] of written) {
      const resp = await submit(address, ton);
      expect(resp.command_status, address).toBe(0);
      const row = await h.ctx.db.kysely
        .selectFrom('messages')
        .select('number')
        .where('reference', '=', resp.message_id)
        .executeTakeFirstOrThrow();
      numbers.push(row.number);
    }
    expect(numbers).toEqual(written.map((_, i) => `52551234567${i + 1}`));
    // Not an old form: 044 and 9 digits, 521 and 11 digits are refused as any malformed number (ESME_RINVDSTADR).
    for (const wrong of ['044551234567', '52155123456789']) expect((await submit(wrong, 0)).command_status).toBe(0x0b);
    session.close();
  });
});
