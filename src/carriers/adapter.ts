import type { AppContext } from '../context.js';
import type { OutboundMessage, SubmitOutcome } from './driver.js';
import type { ConnectorStats } from './status.js';

/** A connector as the manager and the router use it, whatever its kind. */
export interface Connector {
  readonly name: string;
  /** The configuration version it was built from: a newer row rebuilds it. */
  readonly version: number;
  readonly available: boolean;
  /** What `carriers status` shows while it is enabled and built. */
  readonly state: 'bound' | 'connecting';
  readonly stats: ConnectorStats;
  submit(batch: OutboundMessage[]): Promise<SubmitOutcome[]>;
  /** Upkeep of every tick (binds and their leases); `processes` share the binds. */
  tick?(processes: number): Promise<void>;
  /** Releases what it holds (binds after their outstanding responses). */
  close(): Promise<void>;
}

/** A connector's stored configuration: settings checked by its kind's schema, its secret decrypted ('' when none). */
export interface ConnectorConfig<S> {
  name: string;
  version: number;
  settings: S;
  secret: string;
}

/** What a kind's build() gets besides its configuration. */
export interface ConnectorDeps {
  ctx: AppContext;
  /** This process, as lease holder. */
  holder: string;
}
