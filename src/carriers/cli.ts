import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import type { BaseContext } from '../context.js';
import { CliError, type CliRunner } from '../cli/runner.js';
import { encrypt } from '../lib/secrets.js';
import { listCarriers, listRejections, listUnmatchedReplies, publicCarrier, setCarrierEnabled } from './index.js';
import { changeCarrier, createCarrier, removeCarrier, requireCarrier } from './connector-admin.js';
import type { SmppSettings } from './smpp/settings.js';
import { carrierStatus, STATUS_COUNTERS } from './status.js';
import { CLASS_ORDER } from './traffic-line.js';
import { providerOptions, providerSettings, sealProviderSecrets } from './providers/cli-options.js';
import { KINDS, kindOf, parseSettings, type KindType } from './kinds.js';
import { costCommands } from './costs-cli.js';

import { routeCommands } from './route-commands.js';
import { qualityOptions, qualityRequest, statsCommand } from './quality-commands.js';
import { qualityByCarrier } from './quality-settings.js';
import { table } from '../cli/helpers.js';

const int = (v: string) => {
  if (!/^-?\d+$/.test(v)) throw new CliError(`not an integer: ${v}`);
  return Number(v);
};

/** The SMPP options of `carriers add smpp` and `carriers set`, mapped to settings keys. */
function smppOptions(cmd: Command): Command {
  return cmd
    .option('--host <host>')
    .option('--port <n>', 'SMSC port', int)
    .option('--system-id <id>')
    .option(
      '--password <password>',
      'bind password; "-" reads it from standard input (keeps it out of the process list)',
    )
    .option('--system-type <type>')
    .option('--bind <mode>', 'transceiver or transmitter-receiver')
    .option('--tls', 'connect with TLS')
    .option('--no-tls', 'connect without TLS')
    .option('--tls-ca <file>', "PEM file of the CA of the SMSC's certificate (default: the system's CAs)")
    .option('--window <n>', 'outstanding submit_sm per bind (default 10)', int)
    .option('--throughput <n>', 'messages per second across all processes, 0 for no cap', int)
    .option('--binds <n>', 'binds across all processes (default 1)', int)
    .option(
      '--source-ton <n>',
      'source TON (default by the sender: 5 alphanumeric, 3 short code, 1 longer number)',
      int,
    )
    .option(
      '--source-npi <n>',
      'source NPI (default by the sender: 0 alphanumeric or short code, 1 longer number)',
      int,
    )
    .option('--dest-ton <n>', 'destination TON (default 1)', int)
    .option('--dest-npi <n>', 'destination NPI (default 1)', int)
    .option('--default-sender <sender>', 'source address when the message has no sender')
    .option('--enquire-link-seconds <n>', 'enquire_link period (default 30)', int)
    .option('--coding <coding>', 'gsm (data_coding 0, default), latin1 (3) or ucs2 (8)')
    .option('--packed', 'send GSM text as packed septets')
    .option('--no-packed', 'send GSM text one septet per octet (default)')
    .option('--response-timeout-seconds <n>', 'wait for submit_sm_resp (default 30)', int)
    .option('--json', 'print one JSON object');
}

const KEYS: Array<[string, keyof SmppSettings]> = [
  ['host', 'host'],
  ['port', 'port'],
  ['systemId', 'system_id'],
  ['systemType', 'system_type'],
  ['bind', 'bind'],
  ['tls', 'tls'],
  ['tlsCa', 'tls_ca'],
  ['window', 'window'],
  ['throughput', 'throughput'],
  ['binds', 'binds'],
  ['sourceTon', 'source_ton'],
  ['sourceNpi', 'source_npi'],
  ['destTon', 'dest_ton'],
  ['destNpi', 'dest_npi'],
  ['defaultSender', 'default_sender'],
  ['enquireLinkSeconds', 'enquire_link_seconds'],
  ['coding', 'coding'],
  ['packed', 'packed'],
  ['responseTimeoutSeconds', 'response_timeout_seconds'],
];

function settingsFrom(o: Record<string, unknown>, base: Record<string, unknown> = {}): SmppSettings {
  const merged: Record<string, unknown> = { ...base };
  for (const [opt, key] of KEYS) if (o[opt] !== undefined) merged[key] = o[opt];
  let settings: SmppSettings;
  try {
    settings = parseSettings(KINDS.smpp, merged);
  } catch (err) {
    throw new CliError((err as Error).message);
  }
  return settings;
}

function readPassword(value: string): string {
  const password = value === '-' ? readFileSync(0, 'utf8').replace(/\r?\n$/, '') : value;
  if (!KINDS.smpp.secrets.safeParse(password).success) throw new CliError('--password is 1 to 8 characters (SMPP 3.4)');
  return password;
}

/** How the CLI reads each kind's settings and secret from the options (checked by the kind's schemas). */
interface KindOptions {
  /** Options `carriers add` requires (commander names). */
  required: string[];
  settings(o: Record<string, any>, base?: Record<string, unknown>): Record<string, unknown>;
  /** The secret sealed with the server key; undefined when `carriers set` keeps the stored one. */
  sealedSecret(ctx: BaseContext, o: Record<string, any>, adding: boolean): string | undefined;
}

const providerCli = (type: KindType): KindOptions => ({
  required: [],
  settings: (o, base) => providerSettings(type, o, base),
  sealedSecret: (ctx, o, adding) =>
    adding || o.secrets !== undefined ? sealProviderSecrets(ctx, type, o.secrets) : undefined,
});

const KIND_OPTIONS: Record<KindType, KindOptions> = {
  smpp: {
    required: ['host', 'port', 'systemId', 'password'],
    settings: settingsFrom,
    sealedSecret: (ctx, o) =>
      o.password === undefined ? undefined : encrypt(ctx.secrets.keyEncryption, readPassword(o.password)),
  },
  'whatsapp-cloud': providerCli('whatsapp-cloud'),
  'twiml-voice': providerCli('twiml-voice'),
};

const optionName = (name: string) => `--${name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

const limitOf = (n: number) => Math.max(1, Math.min(n, 10_000));

async function addCarrier(ctx: BaseContext, type: string, o: Record<string, any>) {
  const options = kindOf(type) ? KIND_OPTIONS[type as KindType] : undefined;
  const missing = options?.required.find((name) => o[name] === undefined);
  if (missing) throw new CliError(`${optionName(missing)} is required`);
  return createCarrier(ctx, {
    type,
    name: o.name,
    settings: () => options!.settings(o),
    sealedSecret: () => options!.sealedSecret(ctx, o, true) ?? null,
  });
}

function setCarrier(ctx: BaseContext, o: Record<string, any>) {
  const quality = qualityRequest(o);
  const onlyQuality = Object.keys(quality).length > 0 && !hasConnectorOptions(o);
  return changeCarrier(ctx, o.name, {
    quality,
    ...(onlyQuality
      ? {}
      : {
          settings: (type, stored) => KIND_OPTIONS[type].settings(o, stored),
          sealedSecret: (type) => KIND_OPTIONS[type].sealedSecret(ctx, o, false),
        }),
  });
}

/** Options other than the name, --json and the quality ones: they change the connector (and rebind it). */
const hasConnectorOptions = (o: Record<string, unknown>) =>
  Object.entries(o).some(
    ([k, v]) =>
      v !== undefined && !['name', 'json', 'minDeliveryRate', 'qualityWindowMinutes', 'qualityMinMessages'].includes(k),
  );

/** Every connector's settings (never a secret) with its quality settings and whether it is demoted now. */
async function listWithQuality(ctx: BaseContext) {
  const [rows, quality] = await Promise.all([listCarriers(ctx.db.kysely), qualityByCarrier(ctx.db.kysely)]);
  return { carriers: rows.map((row) => ({ ...publicCarrier(row), ...quality(row.name) })) };
}

const QUALITY_COLUMNS = ['min_delivery_rate', 'quality_window_minutes', 'quality_min_messages', 'demoted'];

/** `carriers list` without --json: where each connector sends (an SMPP host, a provider's number or account) and its quality. */
const carriersTable = (r: { carriers: Array<Record<string, unknown>> }) =>
  table(
    r.carriers.map((c) => ({
      ...c,
      address: c.host !== undefined ? `${c.host}:${c.port}` : (c.phone_number_id ?? c.account_sid),
    })),
    ['name', 'type', 'enabled', 'address', ...QUALITY_COLUMNS],
  );

/** `carriers status` without --json: a table of the JSON fields (the last error last: it is free text). */
const statusTable = (r: { carriers: Array<Awaited<ReturnType<typeof carrierStatus>>[number]> }) =>
  table(
    r.carriers.map((c) => ({
      ...c,
      last_error_at: c.last_error_at === null ? null : new Date(c.last_error_at).toISOString(),
      binds_per_process: c.binds_per_process.map((p) => `${p.process}=${p.binds}`).join(' '),
      waiting: CLASS_ORDER.map((k) => `${k}=${c.queues[k].waiting}`).join(' '),
      oldest_s: CLASS_ORDER.map((k) => `${k}=${c.queues[k].oldest_seconds ?? '-'}`).join(' '),
    })),
    [
      'name',
      'type',
      'state',
      'processes',
      'binds',
      'binds_setting',
      'binds_per_process',
      ...STATUS_COUNTERS.filter((k) => k !== 'binds'),
      'waiting',
      'oldest_s',
      'last_error_at',
      'last_error',
    ],
  );

async function rejections(ctx: BaseContext, limit: number) {
  const rows = await listRejections(ctx.db.kysely, limitOf(limit));
  return {
    rejections: rows.map((r) => ({
      carrier: r.carrier,
      reason: r.reason,
      from: r.remote_address,
      count: Number(r.attempts),
      received_at: new Date(Number(r.received_at)).toISOString(),
      last_at: new Date(Number(r.last_at)).toISOString(),
    })),
  };
}

async function unmatchedReplies(ctx: BaseContext, limit: number) {
  const rows = await listUnmatchedReplies(ctx.db.kysely, limitOf(limit));
  return {
    replies: rows.map((r) => ({
      carrier: r.carrier,
      number: r.source,
      to: r.destination,
      text: r.text,
      received_at: new Date(Number(r.received_at)).toISOString(),
    })),
  };
}

function connectorCommands(carriers: Command, run: CliRunner): void {
  const add = carriers
    .command('add')
    .argument('<type>', 'smpp, whatsapp-cloud or twiml-voice')
    .requiredOption('--name <name>');
  providerOptions(smppOptions(add)).action((type: string, o) => run(o, (ctx) => addCarrier(ctx, type, o)));
  const set = carriers.command('set').requiredOption('--name <name>');
  qualityOptions(providerOptions(smppOptions(set))).action((o) => run(o, (ctx) => setCarrier(ctx, o)));
  carriers
    .command('list')
    .option('--json', 'print one JSON object')
    .action((o) => run(o, listWithQuality, carriersTable));
  for (const [command, enabled] of [
    ['disable', 0],
    ['enable', 1],
  ] as const) {
    carriers
      .command(command)
      .requiredOption('--name <name>')
      .option('--json', 'print one JSON object')
      .action((o) =>
        run(o, async (ctx) => {
          await setCarrierEnabled(ctx.db.kysely, (await requireCarrier(ctx, o.name)).id, enabled);
          return publicCarrier(await requireCarrier(ctx, o.name));
        }),
      );
  }
  carriers
    .command('remove')
    .requiredOption('--name <name>')
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        (ctx) => removeCarrier(ctx, o.name),
        () => `removed ${o.name}`,
      ),
    );
}

function reportCommands(carriers: Command, run: CliRunner): void {
  carriers
    .command('status')
    .option('--json', 'print one JSON object')
    .action((o) => run(o, async (ctx) => ({ carriers: await carrierStatus(ctx) }), statusTable));
  carriers
    .command('rejections')
    .description(
      'provider webhooks refused (wrong signature, unknown connector, unreadable body) and unreadable SMPP receipts, counted per hour',
    )
    .option('--limit <n>', 'newest first, at most this many (default 100)', int, 100)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        (ctx) => rejections(ctx, o.limit),
        (r) => table(r.rejections, ['last_at', 'carrier', 'reason', 'from', 'count']),
      ),
    );
  carriers
    .command('replies')
    .option('--unmatched', 'replies that matched no sent message (the only kind listed here)')
    .option('--limit <n>', 'newest first, at most this many (default 100)', int, 100)
    .option('--json', 'print one JSON object')
    .action((o) =>
      run(
        o,
        (ctx) => unmatchedReplies(ctx, o.limit),
        (r) => table(r.replies, ['received_at', 'carrier', 'number', 'to', 'text']),
      ),
    );
}

export function carrierCommands(program: Command, run: CliRunner): void {
  const carriers = program.command('carriers').description('carrier connectors (SMPP) and their state');
  connectorCommands(carriers, run);
  reportCommands(carriers, run);
  costCommands(carriers, run);
  statsCommand(carriers, run);
  routeCommands(program, run);
}
