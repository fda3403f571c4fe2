import { readConfig, type Config } from '../config.js';
import { NoDatabaseFile, openDatabase, type Db } from '../db/engine.js';
import { migrationStatus } from '../db/migrate.js';
import { readServerSecret, secretFile } from '../lib/secrets.js';
import { secretVerdict } from '../db/sealed.js';
import { carrierStatus } from '../carriers/status.js';
import { routesNamingOffCarriers } from '../carriers/routes-off.js';
import { httpGet, localAddress, pingRedis, portIsFree } from './probes.js';
import { checkCertificate, smppAnswers } from './smpp.js';
import { pricesOutcome } from './prices.js';

export type CheckStatus = 'ok' | 'warn' | 'fail';

export interface CheckResult {
  name: string;
  status: CheckStatus;
  detail: string;
}

/** What the checks learn as they run, in table order: later checks use what earlier ones opened. */
export interface DoctorState {
  env: NodeJS.ProcessEnv;
  config?: Config;
  db?: Db;
  /** The database has every migration this version has: its tables can be read. */
  migrated?: boolean;
}

type Outcome = Omit<CheckResult, 'name'>;

/** What a check needs from the checks before it; when that is missing it is reported as not checked. */
type Needs = 'nothing' | 'config' | 'database' | 'schema';

interface Check {
  name: string;
  needs: Needs;
  /** Checks of something the configuration leaves off are left out. */
  applies?: (config: Config) => boolean;
  run(state: DoctorState): Promise<Outcome | CheckResult[]>;
}

const ok = (detail: string): Outcome => ({ status: 'ok', detail });
const warn = (detail: string): Outcome => ({ status: 'warn', detail });
const fail = (detail: string): Outcome => ({ status: 'fail', detail });

async function configuration(state: DoctorState): Promise<Outcome> {
  const read = readConfig(state.env);
  if ('problems' in read) return fail(read.problems.map((p) => `${p.variable}: ${p.message}`).join('; '));
  state.config = read.config;
  return ok('every variable is valid');
}

async function database(state: DoctorState): Promise<Outcome> {
  const url = state.config!.DATABASE_URL;
  let db: Db | undefined;
  let status;
  try {
    // A SQLite file that is not there is not created: the doctor changes nothing.
    db = await openDatabase(url, { existingOnly: true });
    status = await migrationStatus(db);
  } catch (err) {
    await db?.close();
    if (err instanceof NoDatabaseFile)
      return warn(`sqlite:${err.file} does not exist yet: mensajero migrate or serve creates it`);
    return fail(`${url} (the password is masked): ${(err as Error).message}`);
  }
  state.db = db;
  const { pending, unknown } = status;
  if (unknown.length > 0)
    return fail(`${db.describe}: migrations this version does not know (a newer version ran): ${unknown.join(', ')}`);
  state.migrated = pending.length === 0;
  if (pending.length > 0)
    return warn(
      `${db.describe}: ${pending.length} pending (mensajero migrate, or serve at start): ${pending.join(', ')}`,
    );
  return ok(`${db.describe}: reachable and migrated`);
}

/**
 * The secret is tried on one value of each kind the database keeps sealed with a key derived from it (API keys,
 * carrier passwords, webhook signing secrets…): one that does not open was sealed with another secret, the secret
 * changed. `serve` and every command refuse to start on the same finding (db/sealed.ts).
 */
async function secret(state: DoctorState): Promise<Outcome> {
  const config = state.config!;
  const source = config.MENSAJERO_SECRET ? 'MENSAJERO_SECRET' : secretFile(config.DATA_DIR);
  if (!state.migrated) {
    let master: Buffer | undefined;
    try {
      master = readServerSecret(config.MENSAJERO_SECRET, config.DATA_DIR);
    } catch (err) {
      return fail(`${source}: ${(err as Error).message}`);
    }
    const why = state.db ? 'not migrated' : 'unreachable';
    return warn(
      master
        ? `${source} is present; not compared with sealed data: the database is ${why}`
        : `none yet: the first command or serve creates ${source}; several processes share one`,
    );
  }
  const verdict = await secretVerdict(state.db!, config.MENSAJERO_SECRET, config.DATA_DIR);
  if (verdict.status === 'none') return warn(`${verdict.detail}; several processes share one`);
  return { status: verdict.status, detail: verdict.detail };
}

/**
 * A port Mensajero listens on: free, or held by a running Mensajero that
 * answers `identify`. One entry per listener (the SMPP server's is one more).
 */
interface Listener {
  name: string;
  port: (c: Config) => number | undefined;
  host: (c: Config) => string;
  /** Whether what answers at the base address is a Mensajero. */
  identify: (base: string, c: Config) => Promise<boolean>;
  /** How it is named when it answers (default: a running Mensajero). */
  holder?: string;
}

/** The address a local client reaches a listener bound to `host` on, without the scheme and port. */
const reachableHost = (base: string) => new URL(base).hostname.replace(/^\[|\]$/g, '');

const listeners: Listener[] = [
  {
    name: 'http port',
    port: (c) => c.PORT,
    host: (c) => c.HOST,
    identify: async (base) => {
      const r = await httpGet(`${base}/healthz`);
      return r?.status === 200 && r.body.replace(/\s/g, '') === '{"status":"ok"}';
    },
  },
  {
    name: 'metrics port',
    port: (c) => c.METRICS_PORT,
    host: (c) => c.METRICS_HOST,
    identify: async (base, c) => {
      const auth: Record<string, string> = c.METRICS_TOKEN ? { authorization: `Bearer ${c.METRICS_TOKEN}` } : {};
      const r = await httpGet(`${base}/metrics`, auth);
      return r?.status === 200 && r.body.includes('mensajero_');
    },
  },
  {
    name: 'smpp port',
    port: (c) => c.SMPP_SERVER_PORT,
    host: (c) => c.SMPP_SERVER_HOST,
    identify: (base) => smppAnswers(reachableHost(base), Number(new URL(base).port), false),
    holder: 'an SMPP listener that answers enquire_link (a running Mensajero)',
  },
  {
    name: 'smpp tls port',
    port: (c) => c.SMPP_SERVER_TLS_PORT,
    host: (c) => c.SMPP_SERVER_HOST,
    identify: (base) => smppAnswers(reachableHost(base), Number(new URL(base).port), true),
    holder: 'an SMPP listener that answers enquire_link over TLS (a running Mensajero)',
  },
];

function listenerCheck(l: Listener): Check {
  return {
    name: l.name,
    needs: 'config',
    applies: (c) => l.port(c) !== undefined,
    async run(state) {
      const c = state.config!;
      const [host, port] = [l.host(c), l.port(c)!];
      if (port === 0) return ok('0: the system picks a free port at start');
      if (await portIsFree(host, port)) return ok(`${host}:${port} is free`);
      if (await l.identify(localAddress(host, port), c))
        return ok(`${host}:${port} is held by ${l.holder ?? 'a running Mensajero'}`);
      return fail(`${host}:${port} is held by another program`);
    },
  };
}

async function carriers(state: DoctorState): Promise<Outcome | CheckResult[]> {
  const rows = await carrierStatus({ db: state.db! });
  if (rows.length === 0)
    return state.config!.SIMULATORS
      ? ok('none configured: the built-in simulators answer sends')
      : warn('none configured and SIMULATORS is off: sends have nowhere to go');
  return rows.map((c) => ({ name: `carrier ${c.name}`, ...carrierOutcome(c, state.config!.WEB_CONCURRENCY) }));
}

/**
 * Down is only a problem while a process runs: with none, nothing is meant to hold a bind. Fewer binds than the
 * processes that hand messages to the connector (WEB_CONCURRENCY, or the processes running now when more) is a
 * warning: the processes without a bind leave their messages to one that holds one.
 */
function carrierOutcome(c: Awaited<ReturnType<typeof carrierStatus>>[number], webConcurrency: number): Outcome {
  const lastError = c.last_error ? `; last error: ${c.last_error}` : '';
  if (c.state === 'disabled') return ok(`${c.type}: disabled by the operator`);
  const short = fewerBinds(c, webConcurrency);
  if (c.processes === 0)
    return short
      ? warn(`${c.type}: ${short}`)
      : ok(`${c.type}: no running Mensajero process reports it (serve binds it at start)`);
  const detail = `${c.type}: ${c.state} in ${c.processes} running process(es)${lastError}${short ? `; ${short}` : ''}`;
  return c.state === 'bound' && !short ? ok(detail) : warn(detail);
}

/** Why `--binds` is fewer than the processes that hand messages to the connector, or null when it is not. */
function fewerBinds(c: Awaited<ReturnType<typeof carrierStatus>>[number], webConcurrency: number): string | null {
  const processes = Math.max(webConcurrency, c.processes);
  if (c.binds_setting === null || c.binds_setting >= processes) return null;
  const counted = c.processes > webConcurrency ? `${c.processes} running` : `WEB_CONCURRENCY=${webConcurrency}`;
  return (
    `--binds ${c.binds_setting} is fewer than the ${processes} processes that hand messages to it (${counted}): ` +
    `a process without a bind leaves its messages to one that holds a bind (a hop, and that process's window for all). ` +
    `Set --binds ${processes} if the carrier allows that many sessions (mensajero carriers set --name ${c.name} --binds ${processes})`
  );
}

/**
 * Routes that name a connector which is off: the simulator while SIMULATORS
 * is off (the router leaves it out: a route left without a connector no
 * longer applies, and its messages are refused with status 12 and refunded)
 * or a connector the operator disabled (its messages wait, or fail over to
 * the route's next connector). Also a name no connector has, and a
 * connector whose kind cannot carry the route's channel (RCS on SMPP).
 */
export async function routesCheck(state: Pick<DoctorState, 'config' | 'db'>): Promise<Outcome> {
  const problems = await routesNamingOffCarriers(state.db!.kysely, state.config!.SIMULATORS);
  if (problems.length === 0) return ok('every route names enabled carriers');
  const simulatorOff = !state.config!.SIMULATORS && problems.some((p) => p.includes('(SIMULATORS is off)'));
  return warn(
    `routes naming a carrier that is off or cannot carry the route's channel: ${problems.join('; ')}` +
      (simulatorOff
        ? '. The simulator is left out of routes: a message no other route or carrier takes is refused (status 12) and refunded'
        : '') +
      '. Remove or change these routes (mensajero routes add/remove)',
  );
}

async function redis(state: DoctorState): Promise<Outcome> {
  const c = state.config!;
  try {
    await pingRedis(c.REDIS_URL);
  } catch (err) {
    return fail(`${c.REDIS_URL} (the password is masked): ${(err as Error).message}`);
  }
  return ok(`${c.REDIS_URL} answers PING (RATE_LIMIT_STORE=redis)`);
}

/** The checks, in the order they run. */
export const checks: Check[] = [
  { name: 'configuration', needs: 'nothing', run: configuration },
  { name: 'database', needs: 'config', run: database },
  { name: 'secret', needs: 'config', run: secret },
  ...listeners.map(listenerCheck),
  {
    name: 'smpp tls certificate',
    needs: 'config',
    applies: (c) => c.SMPP_SERVER_TLS_PORT !== undefined,
    run: async ({ config }) => checkCertificate(config!.SMPP_SERVER_TLS_CERT!, config!.SMPP_SERVER_TLS_KEY!),
  },
  { name: 'carriers', needs: 'schema', run: carriers },
  { name: 'routes', needs: 'schema', run: routesCheck },
  { name: 'prices', needs: 'schema', run: ({ db, config }) => pricesOutcome(db!, config!) },
  { name: 'redis', needs: 'config', applies: (c) => c.RATE_LIMIT_STORE === 'redis', run: redis },
];

/** Why a check cannot run yet, or undefined when what it needs is there. */
export function missing(needs: Needs, state: DoctorState): string | undefined {
  if (needs === 'nothing') return undefined;
  if (!state.config) return 'not checked: the configuration is invalid';
  if (needs === 'config') return undefined;
  if (!state.db) return 'not checked: the database is unreachable';
  if (needs === 'schema' && !state.migrated) return 'not checked until the database is migrated';
  return undefined;
}

export type { Check };
