import { Counter, Gauge, type Registry } from 'prom-client';
import type { Db } from '../db/engine.js';
import { waitingByKind } from '../features/smpp-users/service.js';

/** The SMPP server's figures in /metrics, per SMPP user where it has one. */
export class SmppServerMetrics {
  readonly binds: Counter<'system_id' | 'status'>;
  readonly submits: Counter<'system_id' | 'status'>;
  readonly resubmits: Counter<'system_id'>;
  readonly malformed: Counter;
  readonly inactive: Counter;
  readonly timedOut: Counter<'reason'>;
  readonly unread: Counter;
  readonly bound: Gauge<'system_id' | 'bind'>;
  readonly delivered: Counter<'system_id' | 'kind'>;
  readonly dropped: Counter<'kind'>;

  constructor(registry: Registry, db: Db, beforeScrape: Array<() => Promise<void>>) {
    const registers = [registry];
    const waiting = new Gauge({
      name: 'mensajero_smpp_server_waiting',
      help: 'Receipts and replies waiting for a receiver bind (the whole deployment)',
      labelNames: ['kind'],
      registers,
    });
    beforeScrape.push(async () => {
      const counts = await waitingByKind(db);
      waiting.reset();
      for (const kind of ['receipt', 'reply'] as const) waiting.set({ kind }, counts[kind]);
    });
    this.binds = new Counter({
      name: 'mensajero_smpp_server_binds_total',
      help: 'Bind requests of customers by system id and command_status (0 bound)',
      labelNames: ['system_id', 'status'],
      registers,
    });
    this.submits = new Counter({
      name: 'mensajero_smpp_server_submits_total',
      help: 'submit_sm answered by system id and command_status (0 accepted, 88 throttled)',
      labelNames: ['system_id', 'status'],
      registers,
    });
    this.resubmits = new Counter({
      name: 'mensajero_smpp_server_resubmits_total',
      help: 'submit_sm recognised as the resubmission of one whose response a dropped bind never got (answered with its message_id, not sent again)',
      labelNames: ['system_id'],
      registers,
    });
    this.malformed = new Counter({
      name: 'mensajero_smpp_server_malformed_total',
      help: 'Sessions closed for a malformed or oversized PDU',
      registers,
    });
    this.inactive = new Counter({
      name: 'mensajero_smpp_server_inactive_total',
      help: 'Sessions unbound after the inactivity timeout',
      registers,
    });
    this.timedOut = new Counter({
      name: 'mensajero_smpp_server_timeouts_total',
      help: 'Sessions closed for not binding within SMPP_SERVER_BIND_TIMEOUT_SECONDS (bind) or for a PDU not complete within SMPP_SERVER_READ_TIMEOUT_SECONDS (read)',
      labelNames: ['reason'],
      registers,
    });
    this.unread = new Counter({
      name: 'mensajero_smpp_server_unread_total',
      help: 'Sessions closed because the customer left too many bytes of answers unread',
      registers,
    });
    this.bound = new Gauge({
      name: 'mensajero_smpp_server_bound',
      help: 'Binds open in this process by system id and bind type',
      labelNames: ['system_id', 'bind'],
      registers,
    });
    this.delivered = new Counter({
      name: 'mensajero_smpp_server_delivered_total',
      help: 'Receipts and replies a customer acknowledged (deliver_sm_resp 0), by system id and kind',
      labelNames: ['system_id', 'kind'],
      registers,
    });
    this.dropped = new Counter({
      name: 'mensajero_smpp_server_dropped_total',
      help: 'Receipts and replies dropped after SMPP_SERVER_DELIVERY_TTL_HOURS without a receiver bind taking them',
      labelNames: ['kind'],
      registers,
    });
    // At 0 from the start: a drop is then an increase a dashboard or an alert sees, not a series appearing.
    for (const kind of ['receipt', 'reply']) this.dropped.inc({ kind }, 0);
  }
}
