/* Shared setup of the ops-asset tests (test/ops/): the Grafana dashboard and the Prometheus alert rules in deploy/. */
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';
import { metricNames, variableMetricNames } from './promql.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const DASHBOARD_FILE = join(ROOT, 'deploy/grafana/mensajero.json');
export const RULES_FILE = join(ROOT, 'deploy/prometheus/alerts.yml');
export const RULE_TESTS_FILE = join(ROOT, 'deploy/prometheus/alerts.test.yml');

export interface Target {
  expr?: string;
  datasource?: { type?: string; uid?: string };
}
export interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type?: string; uid?: string };
  targets?: Target[];
  panels?: Panel[];
}
export interface Dashboard {
  __inputs: Array<{ name: string; type: string; pluginId: string }>;
  schemaVersion: number;
  uid: string;
  title: string;
  panels: Panel[];
  templating: {
    list: Array<{ name: string; type: string; query?: string | { query: string }; datasource?: Target['datasource'] }>;
  };
}
export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export const loadDashboard = (): Dashboard => JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8'));
export const loadRules = (): Array<{ name: string; rules: Rule[] }> =>
  parseYaml(readFileSync(RULES_FILE, 'utf8')).groups;

/** The unit tests of the rules (alerts.test.yml): each alert checked, with whether it is expected to fire then. */
export const loadRuleTests = (): Array<{ alertname: string; fires: boolean }> =>
  (
    parseYaml(readFileSync(RULE_TESTS_FILE, 'utf8')).tests as Array<{
      alert_rule_test?: Array<{ alertname: string; exp_alerts?: unknown[] }>;
    }>
  ).flatMap((t) =>
    (t.alert_rule_test ?? []).map((a) => ({ alertname: a.alertname, fires: (a.exp_alerts ?? []).length > 0 })),
  );

/** Every panel, those inside collapsed rows included. */
export const allPanels = (d: Dashboard): Panel[] => d.panels.flatMap((p) => [p, ...(p.panels ?? [])]);

/** The metric names each query of the dashboard names, by where it is ("panel title: expr" or "variable name"). */
export function dashboardMetrics(d: Dashboard): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const p of allPanels(d))
    for (const t of p.targets ?? []) if (t.expr) found.set(`panel "${p.title}": ${t.expr}`, metricNames(t.expr));
  for (const v of d.templating.list)
    if (v.type === 'query' && v.query)
      found.set(`variable ${v.name}`, variableMetricNames(typeof v.query === 'string' ? v.query : v.query.query));
  return found;
}

/** The metric names each alert or recording rule names. */
export function ruleMetrics(): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  for (const g of loadRules())
    for (const r of g.rules) found.set(`rule ${r.alert ?? r.record}`, metricNames(String(r.expr)));
  return found;
}

/** Names with at least one sample in a Prometheus text exposition. */
export function exposedSeries(text: string): Set<string> {
  const names = new Set<string>();
  for (const line of text.split('\n')) {
    const name = /^([a-zA-Z_:][a-zA-Z0-9_:]*)[{ ]/.exec(line)?.[1];
    if (name) names.add(name);
  }
  return names;
}

/** The places whose metric is not exposed (a histogram's base name counts as its _bucket series). */
export function unexposed(used: Map<string, Set<string>>, exposed: Set<string>): string[] {
  const missing: string[] = [];
  for (const [where, names] of used)
    for (const n of names) if (!exposed.has(n) && !exposed.has(`${n}_bucket`)) missing.push(`${n} (${where})`);
  return missing;
}

/** promtool from PROMTOOL or the PATH (.ci/run installs Debian's prometheus package), or null. */
export function findPromtool(): string | null {
  const candidates = process.env.PROMTOOL
    ? [process.env.PROMTOOL]
    : (process.env.PATH ?? '').split(delimiter).map((dir) => join(dir, 'promtool'));
  for (const c of candidates)
    try {
      accessSync(c, constants.X_OK);
      return c;
    } catch {
      /* not there */
    }
  return null;
}
