import { createServer, type Server } from 'node:net';
import { runMensajero, type CliResult } from './cli.js';

export interface DoctorCheck {
  name: string;
  status: 'ok' | 'warn' | 'fail';
  detail: string;
}

/** `mensajero doctor --json`: the exit code, the whole output and the checks by name. */
export async function doctor(
  env: Record<string, string>,
): Promise<CliResult & { checks: Record<string, DoctorCheck> }> {
  const r = await runMensajero(['doctor', '--json'], env);
  const list: DoctorCheck[] = r.json?.checks ?? [];
  return { ...r, checks: Object.fromEntries(list.map((c) => [c.name, c])) };
}

/** A TCP listener on 127.0.0.1 that is not Mensajero: it accepts and says nothing. */
export async function holdPort(): Promise<{ server: Server; port: number }> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** A port nothing listens on (taken from the system, then released). */
export async function closedPort(): Promise<number> {
  const { server, port } = await holdPort();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
