import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

/** Where Debian's kannel and kannel-extras put the programs. */
const FAKESMSC = '/usr/lib/kannel/test/fakesmsc';
const bearerbox = () =>
  ['/usr/sbin', ...(process.env.PATH ?? '').split(delimiter)]
    .map((d) => join(d, 'bearerbox'))
    .find((p) => existsSync(p));

export interface Kannel {
  /** GET /cgi-bin/sendsms without `to`: append `&to=…`. */
  sendsmsUrl: string;
  /** Messages bearerbox has handed to the fake SMSC so far, and those still queued for it. */
  sent(): Promise<{ sent: number; queued: number }>;
  /** CPU time bearerbox and smsbox have used so far (user + system), in seconds. */
  cpuSeconds(): number;
  stop(): void;
}

/** utime + stime of a live process, from /proc (Linux), in seconds. */
function processCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks; 100 per second on Linux
}

/** Whether bearerbox, smsbox and fakesmsc are installed (apt-get install kannel kannel-extras). */
export function kannelInstalled(): boolean {
  const bb = bearerbox();
  return bb !== undefined && existsSync(join(bb, '..', 'smsbox')) && existsSync(FAKESMSC);
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`Kannel: ${what} did not come up in ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * bearerbox + smsbox + fakesmsc on free local ports, with a generated
 * configuration in a temporary directory. stop() kills all three (also on
 * process exit) and removes the directory.
 */
export async function startKannel(): Promise<Kannel> {
  const bb = bearerbox();
  if (!bb) throw new Error('bearerbox is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-bench-kannel-'));
  const [admin, box, smsc, sendsms] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const password = randomBytes(12).toString('hex');
  const conf = join(dir, 'kannel.conf');
  writeFileSync(
    conf,
    [
      'group = core',
      `admin-port = ${admin}`,
      `admin-password = ${password}`,
      `smsbox-port = ${box}`,
      'admin-interface = 127.0.0.1',
      'box-allow-ip = 127.0.0.1',
      'log-level = 4',
      // Its durable message store, as a deployment that must not lose its queue runs it (Kannel user guide, core group).
      'store-type = file',
      `store-location = ${join(dir, 'kannel.store')}`,
      '',
      'group = smsc',
      'smsc = fake',
      'smsc-id = fake',
      `port = ${smsc}`,
      'connect-allow-ip = 127.0.0.1',
      '',
      'group = smsbox',
      'bearerbox-host = 127.0.0.1',
      `sendsms-port = ${sendsms}`,
      'sendsms-interface = 127.0.0.1',
      'log-level = 4',
      '',
      'group = sendsms-user',
      'username = bench',
      `password = ${password}`,
      '',
      'group = sms-service',
      'keyword = default',
      'text = "ok"',
      '',
    ].join('\n'),
    { mode: 0o600 },
  );
  const children: ChildProcess[] = [];
  const stop = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    process.off('exit', stop);
    rmSync(dir, { recursive: true, force: true });
  };
  process.on('exit', stop);
  const run = (file: string, args: string[]) => {
    const child = spawn(file, args, { cwd: dir, stdio: 'ignore' });
    children.push(child);
    return child;
  };
  const status = `http://127.0.0.1:${admin}/status.txt?password=${password}`;
  try {
    const boxes = [run(bb, [conf])];
    await waitFor('bearerbox', async () => (await fetch(status)).ok);
    boxes.push(run(join(bb, '..', 'smsbox'), [conf]));
    // -m 0: sends no mobile-originated message, only receives (and discards) what bearerbox submits.
    run(FAKESMSC, ['-H', '127.0.0.1', '-r', String(smsc), '-m', '0', '1 2 text x']);
    const sendsmsUrl = `http://127.0.0.1:${sendsms}/cgi-bin/sendsms?username=bench&password=${password}&from=MENSAJERO&text=Hola`;
    await waitFor(
      'smsbox and fakesmsc',
      async () => (await fetch(`${sendsmsUrl}&to=5512345678`)).ok && /online/.test(await (await fetch(status)).text()),
    );
    return {
      sendsmsUrl,
      async sent() {
        const text = await (await fetch(status)).text();
        const m = /SMS:.*sent (\d+) \((\d+) queued\)/.exec(text);
        if (!m) throw new Error(`Kannel status without SMS counts: ${text.slice(0, 200)}`);
        return { sent: Number(m[1]), queued: Number(m[2]) };
      },
      cpuSeconds: () => boxes.reduce((sum, c) => sum + processCpuSeconds(c.pid!), 0),
      stop,
    };
  } catch (err) {
    stop();
    throw err;
  }
}
