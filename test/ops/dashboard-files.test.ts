import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  allPanels,
  dashboardMetrics,
  findPromtool,
  loadDashboard,
  loadRules,
  loadRuleTests,
  ruleMetrics,
  RULE_TESTS_FILE,
  RULES_FILE,
} from '../helpers/ops.js';

/** What the dashboard must show: a panel whose title matches, querying that metric. */
const PANELS: Array<[RegExp, string]> = [
  [/messages by channel and status/i, 'mensajero_messages_total'],
  [/delivery rate per carrier/i, 'mensajero_carrier_receipts_total'],
  [/receipt latency per carrier/i, 'mensajero_carrier_receipt_latency_seconds_bucket'],
  [/carrier binds/i, 'mensajero_carrier_binds'],
  [/queue depth/i, 'mensajero_job_queue_depth'],
  [/oldest due job/i, 'mensajero_job_queue_oldest_age_seconds'],
  [/webhook delivery attempts/i, 'mensajero_webhook_attempts_total'],
  [/http latency/i, 'mensajero_http_request_duration_seconds_bucket'],
  [/http error/i, 'mensajero_http_requests_total'],
  [/SMPP server binds open/i, 'mensajero_smpp_server_bound'],
  [/SMPP server bind requests/i, 'mensajero_smpp_server_binds_total'],
  [/SMPP server submits/i, 'mensajero_smpp_server_submits_total'],
  [/SMPP server receipts and replies waiting/i, 'mensajero_smpp_server_waiting'],
  [/SMPP server receipts and replies delivered/i, 'mensajero_smpp_server_delivered_total'],
  [/SMPP server receipts and replies delivered and dropped/i, 'mensajero_smpp_server_dropped_total'],
  [/SMPP server sessions closed/i, 'mensajero_smpp_server_malformed_total'],
  [/SMPP server sessions closed/i, 'mensajero_smpp_server_inactive_total'],
];

/** The areas the alert rules must cover: at least one alert whose expression names a metric of the area. */
const RULE_AREAS: Array<[string, RegExp]> = [
  ['carriers', /^mensajero_carrier_/],
  ['the job queue', /^mensajero_job_queue_/],
  ['webhook delivery', /^mensajero_webhook_/],
  ['the SMPP server', /^mensajero_smpp_server_/],
  ['the database', /^mensajero_database_up$/],
];

const DATASOURCE = '${DS_PROMETHEUS}';

describe('Grafana dashboard deploy/grafana/mensajero.json', () => {
  const d = loadDashboard();
  const panels = allPanels(d);
  const queried = dashboardMetrics(d);

  it('imports into a current Grafana: schema 39 or later, a Prometheus data source input, uid and title', () => {
    expect(d.schemaVersion).toBeGreaterThanOrEqual(39);
    expect(d.__inputs).toContainEqual(
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }),
    );
    expect(d.uid).toMatch(/^[a-zA-Z0-9_-]{1,40}$/);
    expect(d.title).toBe('Mensajero');
  });

  it('queries the input data source in every panel, target and variable', () => {
    const elsewhere = [
      ...panels
        .filter((p) => p.type !== 'row')
        .flatMap((p) => [p.datasource, ...(p.targets ?? []).map((t) => t.datasource)]),
      ...d.templating.list.filter((v) => v.type === 'query').map((v) => v.datasource),
    ].filter((ds) => ds?.type !== 'prometheus' || ds.uid !== DATASOURCE);
    expect(elsewhere).toEqual([]);
  });

  it('gives each panel its own id and place on the grid, and each a query', () => {
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    const cells = new Set<string>();
    for (const p of panels) {
      expect(p.gridPos.x + p.gridPos.w, p.title).toBeLessThanOrEqual(24);
      for (let x = p.gridPos.x; x < p.gridPos.x + p.gridPos.w; x++)
        for (let y = p.gridPos.y; y < p.gridPos.y + p.gridPos.h; y++) {
          expect(cells.has(`${x},${y}`), `${p.title} overlaps another panel`).toBe(false);
          cells.add(`${x},${y}`);
        }
      if (p.type !== 'row') expect(p.targets?.filter((t) => t.expr?.trim()).length, p.title).toBeGreaterThan(0);
    }
  });

  it.each(PANELS)('shows a panel %s on %s', (title, metric) => {
    const panel = panels.find((p) => title.test(p.title));
    expect(panel, `no panel titled ${title}`).toBeDefined();
    expect(
      [...queried].some(([where, names]) => where.startsWith(`panel "${panel!.title}"`) && names.has(metric)),
    ).toBe(true);
  });
});

describe('Prometheus alert rules deploy/prometheus/alerts.yml', () => {
  const used = ruleMetrics();

  it.each(RULE_AREAS)('alert on %s', (_area, prefix) => {
    const alerts = [...used].filter(
      ([where, names]) => where.startsWith('rule ') && [...names].some((n) => prefix.test(n)),
    );
    expect(alerts.length).toBeGreaterThan(0);
  });

  it('gives every alert a severity and a summary, and every rule a unique name', () => {
    const rules = loadRules().flatMap((g) => g.rules);
    const names = rules.map((r) => r.alert ?? r.record);
    expect(new Set(names).size).toBe(names.length);
    for (const r of rules.filter((r) => r.alert)) {
      expect(['critical', 'warning'], r.alert).toContain(r.labels?.severity);
      expect(r.annotations?.summary, r.alert).toBeTruthy();
    }
  });

  it('has a unit test for every alert in alerts.test.yml, where it fires and where it does not', () => {
    const alerts = loadRules()
      .flatMap((g) => g.rules)
      .flatMap((r) => (r.alert ? [r.alert] : []));
    const tests = loadRuleTests();
    const untested = alerts.filter(
      (a) => !tests.some((t) => t.alertname === a && t.fires) || !tests.some((t) => t.alertname === a && !t.fires),
    );
    expect(untested).toEqual([]);
  });

  it('alerts when a process cannot reach its database (mensajero_database_up == 0)', () => {
    const rule = loadRules()
      .flatMap((g) => g.rules)
      .find((r) => r.alert === 'MensajeroDatabaseDown');
    expect(String(rule?.expr).trim()).toBe('mensajero_database_up == 0');
    expect(rule?.labels?.severity).toBe('critical');
  });

  const promtool = findPromtool();
  if (!promtool) console.warn('promtool is not installed (Debian package prometheus): the rule checks are skipped');
  const run = promisify(execFile);

  it.skipIf(!promtool)('promtool check rules accepts them', async () => {
    const { stdout } = await run(promtool!, ['check', 'rules', RULES_FILE]);
    expect(stdout).toMatch(/SUCCESS: \d+ rules found/);
  });

  it.skipIf(!promtool)('promtool test rules: the unit tests of deploy/prometheus/alerts.test.yml pass', async () => {
    const { stdout } = await run(promtool!, ['test', 'rules', RULE_TESTS_FILE]);
    expect(stdout).toMatch(/SUCCESS/);
  });
});
