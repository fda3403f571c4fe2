import { smpp, type Pdu, type SmppSession } from '../../src/smpp-protocol/pdu.js';
import { addSmppUser, type SmppUserInput } from '../../src/features/smpp-users/service.js';
import type { SmppServerOptions } from '../../src/smpp-server/listener.js';
import { startHarness, type EngineName, type Harness, type TestAccount } from './harness.js';

/** A service with the SMPP listener on a free port, and quick liveness checks for tests. */
export async function startSmppHarness(
  engine: EngineName,
  opts: { env?: Record<string, string>; smpp?: SmppServerOptions } = {},
): Promise<Harness & { smppPort: number }> {
  const h = await startHarness(engine, {
    env: { SMPP_SERVER_PORT: '0', SMPP_SERVER_HOST: '127.0.0.1', ...opts.env },
    smpp: { renewMs: 200, ...opts.smpp },
  });
  return Object.assign(h, { smppPort: h.smpp!.port! });
}

let users = 0;

/** An account with credits and one SMPP user of it; the password is `secret1` unless given. */
export async function smppCustomer(
  h: Harness,
  credits = 100,
  input: Partial<SmppUserInput> = {},
): Promise<TestAccount & { systemId: string; password: string }> {
  const account = await h.createAccount(credits);
  const systemId = input.systemId ?? `cust${++users}${Math.floor(Math.random() * 1000)}`;
  const password = input.password ?? 'secret1';
  await addSmppUser(h.ctx.db, account, { ...input, systemId, password });
  return { ...account, systemId, password };
}

/** A customer's SMPP client (the `smpp` package), connected, not bound yet. */
export function connectClient(port: number, tls = false): Promise<SmppSession> {
  return new Promise((resolve, reject) => {
    const session = smpp.connect({ host: '127.0.0.1', port, tls, rejectUnauthorized: false });
    session.once(tls ? 'secureConnect' : 'connect', () => resolve(session));
    session.once('error', reject);
  });
}

/** Sends one request and resolves with its response. */
export function ask(session: SmppSession, command: string, options: Record<string, unknown> = {}): Promise<Pdu> {
  return new Promise((resolve) => session[command](options, (pdu: Pdu) => resolve(pdu)));
}

/** Connects and binds; resolves with the bind_resp's command_status and the session. */
export async function bindClient(
  port: number,
  systemId: string,
  password: string,
  mode: 'transceiver' | 'transmitter' | 'receiver' = 'transceiver',
  /** Runs before the bind (listeners for what the server sends right after it). */
  before?: (session: SmppSession) => void,
): Promise<{ session: SmppSession; status: number }> {
  const session = await connectClient(port);
  session.on('error', () => undefined);
  // A live customer answers the server's enquire_link (the package does not by itself).
  session.on('enquire_link', (pdu: Pdu) => session.send(pdu.response()));
  before?.(session);
  const resp = await ask(session, `bind_${mode}`, { system_id: systemId, password });
  return { session, status: resp.command_status };
}

/** Resolves when the session's socket closes. */
export const closed = (session: SmppSession) =>
  new Promise<void>((resolve) =>
    session.socket.destroyed ? resolve() : session.socket.once('close', () => resolve()),
  );
