import { hostname } from 'node:os';
import type { Config } from '../config.js';
import type { BaseContext } from '../context.js';
import { decrypt } from '../lib/secrets.js';
import { randomToken } from '../lib/ids.js';
import type { CarrierIds, CarrierSink, Connector, ConnectorDeps, Coordination } from './adapter.js';
import type { OutboundMessage } from '../messaging/ports.js';
import { kindOf, parseSettings, providerIds } from './kinds.js';
import { routesWithout, type RouteEntry, type Strategy } from './routing.js';
import { costCache, CostTable } from './costs.js';
import { evaluateQuality, type QualityChange } from './quality.js';
import type { CarrierHealth } from './strategies.js';
import { SimulatorConnector, type SimulatorConfig } from './simulator/connector.js';
import { pruneThroughput } from './coordination-store.js';
import { addEventCounts, EventCountDeltas, pruneEventCounts } from './event-counts.js';
import {
  boundInOtherProcesses,
  emptyStats,
  liveProcesses,
  withdrawProcessStatus,
  writeProcessStatus,
  type ConnectorStats,
} from './status.js';
import {
  listBoundInstances,
  listCarriers,
  listRoutes,
  SIMULATOR,
  type BoundInstance,
  type CarrierRow,
} from './store.js';
import { WhatsappConnector } from './whatsapp-cloud/connector.js';
import { instanceConnectorName, readBinding } from './whatsapp-cloud/instances.js';

export type { Connector } from './adapter.js';

/** What the manager uses of the process (built by registry.ts): never the whole context. */
export interface ManagerServices extends Pick<BaseContext, 'db' | 'log' | 'secrets'> {
  config: Pick<Config, 'CARRIER_POLL_MS' | 'publicBaseUrl'> & SimulatorConfig;
  /** Bind leases and throughput counters shared with the other processes. */
  coordination: Coordination;
  /** The sink of connectors whose carrier ids are kept as `ids` say. */
  sinkFor(ids: CarrierIds): CarrierSink;
  /** Applies the receipts of `carrier` that were waiting for their carrier id. */
  applyWaiting(ids: CarrierIds, carrier: string): Promise<unknown>;
  /** Housekeeping of carrier ids, waiting receipts, reply parts and receipt counts. */
  pruneReceived(): Promise<void>;
}

/**
 * This process's view of the operator's carrier configuration: connectors
 * and routes reloaded every CARRIER_POLL_MS (a changed connector is closed
 * and rebound, so a CLI change takes effect within seconds, no restart),
 * bind leases renewed, this process's state and counters written for
 * `carriers status`, and receipts still waiting for their message retried.
 */
export class CarrierManager {
  readonly holder = `${hostname()}:${process.pid}:${randomToken(4)}`;
  readonly simulator: SimulatorConnector;
  /** Connectors of the configured rows (every kind of kinds.ts), by name. */
  private readonly connectors = new Map<string, Connector>();
  private readonly closing = new Set<Connector>();
  /** What the connectors counted since the last round, for `carrier_event_counts`. */
  private readonly eventDeltas = new EventCountDeltas();
  /** Chat-app instances bound to their own Cloud API number, by instance id, in the order they were created. */
  private instances = new Map<
    string,
    { key: string; accountId: number; active: boolean; connector: WhatsappConnector | null }
  >();
  private rows: CarrierRow[] = [];
  routes: RouteEntry[] = [];
  /** Carrier costs by connector and prefix (costs.ts), reloaded with the routes when they changed. */
  costs = new CostTable();
  private readonly costCache = costCache();
  /** Connectors demoted for their delivery rate (the database's state as of the last upkeep). */
  demoted = new Set<string>();
  /** Called for each quality change this process made (a metric). */
  onQualityChange: ((change: QualityChange) => void) | null = null;
  /** Connectors that another running process reported bound at the last upkeep (status.ts). */
  private elsewhere = new Set<string>();
  /** What the route strategies need to know of the connectors now: up here, or bound in another process. */
  readonly health: CarrierHealth = {
    up: (name) => this.connector(name)?.available === true || this.boundElsewhere(name),
    demoted: (name) => this.demoted.has(name),
    costFor: (name, number) => this.costs.costFor(name, number),
  };
  private loaded: Promise<void> | null = null;
  private timer: NodeJS.Timeout | null = null;
  private ticking: Promise<void> | null = null;
  private ticks = 0;
  private stopped = false;
  /** The sink of what has no connector row of its own: bound instances, the simulator's reports, refused webhooks. */
  private readonly instanceSink: CarrierSink;

  constructor(private readonly services: ManagerServices) {
    this.instanceSink = services.sinkFor(providerIds);
    this.simulator = new SimulatorConnector(services.config, this.instanceSink);
  }

  /** Where provider webhooks hand the requests they refuse (also those naming no connector). */
  get refusals(): Pick<CarrierSink, 'rejected'> {
    return this.instanceSink;
  }

  /** Loads the configuration once (also without start(), for a context that only dispatches inline). */
  ready(): Promise<void> {
    return (this.loaded ??= this.refresh());
  }

  start(): void {
    if (this.timer || this.stopped) return;
    this.timer = setInterval(() => void this.tick(), this.services.config.CARRIER_POLL_MS);
    this.timer.unref();
    void this.tick();
  }

  /**
   * Not up in this process but bound in another one: not down. Its messages are left to a process that holds a
   * bind (the router answers them `elsewhere`), never failed over.
   */
  boundElsewhere(name: string): boolean {
    return this.elsewhere.has(name) && this.connector(name)?.available !== true;
  }

  /** Connectors that bind (SMPP) with a bind up in this process. */
  boundHere(): string[] {
    return this.rows.flatMap((r) =>
      kindOf(r.type)?.binds && this.connectors.get(r.name)?.available === true ? [r.name] : [],
    );
  }

  connector(name: string): Connector | null {
    if (name === SIMULATOR) return this.simulator;
    if (name.startsWith('instance:')) return this.instances.get(name.slice('instance:'.length))?.connector ?? null;
    return this.connectors.get(name) ?? null;
  }

  /**
   * The bound instance a chat-app message goes out through, if any: the
   * instance it names, or for a send that names none (OTP codes over
   * chat-app) the account's first active bound instance. null: the routes apply.
   */
  instanceFor(m: Pick<OutboundMessage, 'channel' | 'meta' | 'accountId'>): string | null {
    if (m.channel !== 'chatapp') return null;
    const named = typeof m.meta?.instance_id === 'string' ? m.meta.instance_id : null;
    if (named) return this.instances.has(named) ? instanceConnectorName(named) : null;
    for (const [id, b] of this.instances) if (b.active && b.accountId === m.accountId) return instanceConnectorName(id);
    return null;
  }

  /** The account of a bound instance's connector (`instance:<id>`): the one its number belongs to. */
  instanceAccount(connectorName: string): number | undefined {
    return connectorName.startsWith('instance:')
      ? this.instances.get(connectorName.slice('instance:'.length))?.accountId
      : undefined;
  }

  /** The connector of a bound instance whose Cloud API number is this one (webhooks of one Meta app name several numbers). */
  instanceByPhoneNumber(phoneNumberId: string): WhatsappConnector | null {
    for (const b of this.instances.values())
      if (b.connector?.settings.phone_number_id === phoneNumberId) return b.connector;
    return null;
  }

  /** One round of upkeep; never two at once. */
  tick(): Promise<void> {
    return (this.ticking ??= this.upkeep().finally(() => (this.ticking = null)));
  }

  /** A round that starts after this call, so it sees every change made before it (a running round may have read the old rows). */
  async refreshNow(): Promise<void> {
    await this.ticking;
    await this.tick();
  }

  private async upkeep(): Promise<void> {
    try {
      await this.refresh();
      this.loaded ??= Promise.resolve();
      await this.reportStatus();
      await this.reportEventCounts();
      const processes = await liveProcesses(this.services.db.kysely);
      this.elsewhere = await boundInOtherProcesses(this.services.db.kysely, this.holder);
      await Promise.all([...this.connectors.values()].map((c) => c.tick?.(processes)));
      await this.applyWaitingReceipts();
      await this.evaluateQuality();
      if (this.ticks++ % 30 === 0) {
        await pruneThroughput(this.services.db);
        await this.services.pruneReceived();
        await pruneEventCounts(this.services.db.kysely, Date.now());
      }
    } catch (err) {
      if (!this.stopped)
        this.services.log.warn({ err: (err as Error).message }, 'carrier upkeep failed; retrying at the next tick');
    }
  }

  /** Demotions and recoveries by delivery rate (quality.ts): each change made here is logged and counted. */
  private async evaluateQuality(): Promise<void> {
    const { demoted, changes } = await evaluateQuality(this.services.db.kysely, Date.now());
    this.demoted = demoted;
    for (const c of changes) {
      const line = { carrier: c.carrier, delivery_rate: c.rate, receipts: c.receipts, min_delivery_rate: c.threshold };
      if (c.change === 'demoted')
        this.services.log.warn(line, 'carrier demoted: its delivery rate fell below its minimum');
      else this.services.log.info(line, 'carrier recovered: its delivery rate is back at its minimum');
      this.onQualityChange?.(c);
    }
  }

  /** Receipts that came before their message's carrier id, of every connector (bound instances' too). */
  private async applyWaitingReceipts(): Promise<void> {
    for (const row of this.rows) {
      const c = this.connectors.get(row.name);
      const kind = kindOf(row.type);
      if (c && kind) await this.services.applyWaiting(kind.receipts, c.name);
    }
    for (const { connector } of this.instances.values()) {
      if (connector) await this.services.applyWaiting(providerIds, connector.name);
    }
  }

  private async refresh(): Promise<void> {
    if (this.stopped) return;
    const [rows, routes, bound] = await Promise.all([
      listCarriers(this.services.db.kysely),
      listRoutes(this.services.db.kysely),
      listBoundInstances(this.services.db.kysely),
    ]);
    this.rows = rows;
    this.costs = await this.costCache.current(this.services.db.kysely);
    const entries = routes.map((r) => ({
      channel: r.channel,
      prefix: r.prefix,
      accountId: Number(r.account_id),
      carriers: JSON.parse(r.carriers) as string[],
      strategy: r.strategy as Strategy,
      weights: r.weights ? (JSON.parse(r.weights) as number[]) : null,
    }));
    // With the simulators off the simulator never comes back in this process: routes leave it out (routesWithout).
    this.routes = this.services.config.SIMULATORS ? entries : routesWithout(entries, SIMULATOR);
    this.simulator.enabled = rows.some((r) => r.name === SIMULATOR && r.enabled === 1);
    const wanted = new Map(rows.filter((r) => kindOf(r.type) && r.enabled === 1).map((r) => [r.name, r]));
    for (const [name, c] of this.connectors) if (wanted.get(name)?.version !== c.version) this.retire(name, c);
    this.refreshInstances(bound);
    for (const [name, row] of wanted) {
      // Connectors that bind do so in a running service only, not in a CLI command.
      if (!this.connectors.has(name) && (this.timer || !kindOf(row.type)!.binds)) this.build(row);
    }
  }

  /** Not awaited: its sessions wait for their responses, the upkeep of the others goes on. */
  private retire(name: string, c: Connector): void {
    this.connectors.delete(name);
    this.closing.add(c);
    void c.close().finally(() => this.closing.delete(c));
  }

  private build(row: CarrierRow): void {
    try {
      const kind = kindOf(row.type)!;
      const secret = row.password_enc ? decrypt(this.services.secrets.keyEncryption, row.password_enc) : '';
      const settings = parseSettings(kind, JSON.parse(row.settings));
      const config = { name: row.name, version: row.version, settings, secret };
      const sink = this.services.sinkFor(kind.receipts);
      this.connectors.set(row.name, kind.build(config, { ...this.deps, sink }));
    } catch (err) {
      // Never a secret: only which connector and why its settings are unusable.
      this.services.log.error(
        { carrier: row.name, err: (err as Error).message },
        'carrier settings unusable; connector left down',
      );
    }
  }

  /** Connectors of bound instances: rebuilt when their binding changed, kept (with their pacing) otherwise. */
  private refreshInstances(bound: BoundInstance[]): void {
    const next: typeof this.instances = new Map();
    for (const i of bound) {
      const key = `${i.cloud_settings}|${i.cloud_secrets_enc}`;
      const had = this.instances.get(i.instance_id);
      const entry = { key, accountId: Number(i.account_id), active: i.status === 'active' };
      if (had?.key === key) {
        next.set(i.instance_id, { ...had, ...entry });
        continue;
      }
      try {
        const { settings, secrets } = readBinding(this.services.secrets.keyEncryption, i);
        next.set(i.instance_id, {
          ...entry,
          connector: new WhatsappConnector(
            this.instanceSink,
            instanceConnectorName(i.instance_id),
            0,
            settings,
            secrets,
          ),
        });
      } catch (err) {
        // Kept without a connector: its messages wait (down, retried) rather than leave through the routes.
        next.set(i.instance_id, { ...entry, connector: null });
        // Never a secret: only which instance and why its binding is unusable.
        this.services.log.error(
          { instance: i.instance_id, err: (err as Error).message },
          'chat-app instance binding unusable; its messages wait',
        );
      }
    }
    this.instances = next;
  }

  /** What connectors can use besides their sink (never the whole context). */
  private get deps(): Omit<ConnectorDeps, 'sink'> {
    const { log, config, coordination } = this.services;
    return { coordination, log, publicBaseUrl: config.publicBaseUrl, holder: this.holder };
  }

  private async reportStatus(): Promise<void> {
    const now = Date.now();
    const rows = this.rows.map((r) => {
      const c = this.connectorOf(r);
      const state =
        r.enabled !== 1
          ? 'disabled'
          : !c
            ? 'down'
            : c === this.simulator
              ? this.simulator.available
                ? 'bound'
                : 'down'
              : c.state;
      return {
        carrier: r.name,
        holder: this.holder,
        state,
        stats: JSON.stringify(c?.stats ?? emptyStats()),
        updated_at: now,
      };
    });
    await writeProcessStatus(this.services.db.kysely, rows);
  }

  /** Throttles, refusals and errors every connector of this process counted since the last round, added to the shared counts. */
  private async reportEventCounts(): Promise<void> {
    const bound = [...this.instances.values()].flatMap((i) => (i.connector ? [i.connector] : []));
    const all = [this.simulator, ...this.connectors.values(), ...this.closing, ...bound];
    await addEventCounts(this.services.db.kysely, this.eventDeltas.take(all, Date.now()));
  }

  private connectorOf(row: CarrierRow): Connector | undefined {
    return kindOf(row.type) ? this.connectors.get(row.name) : this.simulator;
  }

  /** Per-connector figures of this process, for /metrics. */
  snapshot(): Array<{ name: string; state: string; stats: ConnectorStats }> {
    return this.rows.map((r) => {
      const c = this.connectorOf(r);
      const state = r.enabled !== 1 ? 'disabled' : !c ? 'down' : c.available ? 'bound' : 'connecting';
      return { name: r.name, state, stats: c?.stats ?? emptyStats() };
    });
  }

  /** Graceful stop: binds unbound (after their outstanding responses), leases released, status withdrawn. */
  /** This process stops: what waits in the connectors' lines goes back to be handed over by another process. */
  refuseWaiting(): void {
    for (const c of [...this.connectors.values(), ...this.closing]) c.refuseWaiting?.();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.refuseWaiting();
    if (this.timer) clearInterval(this.timer);
    await this.ticking;
    await Promise.all([...this.connectors.values(), ...this.closing].map((c) => c.close()));
    await this.reportEventCounts().catch(() => undefined);
    this.connectors.clear();
    await withdrawProcessStatus(this.services.db.kysely, this.holder).catch(() => undefined);
  }
}
