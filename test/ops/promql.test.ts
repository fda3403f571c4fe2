import { describe, expect, it } from 'vitest';
import { metricNames, variableMetricNames } from '../helpers/promql.js';

/** The tokenizer the dashboard and alert-rule test relies on: metric names only, nothing else. */
describe('metric names of a PromQL expression', () => {
  it.each([
    ['a bare metric', 'up', ['up']],
    ['matchers and ranges', 'rate(http_total{route=~"/sms/.*", status!="200"}[5m])', ['http_total']],
    [
      'aggregation with a label list before and after',
      'sum by (carrier, le) (rate(x_bucket[$__rate_interval])) + sum(y) without (instance)',
      ['x_bucket', 'y'],
    ],
    [
      'histogram_quantile and a number',
      'histogram_quantile(0.95, sum by (le) (rate(lat_seconds_bucket[5m]))) > 1e3',
      ['lat_seconds_bucket'],
    ],
    [
      'vector matching and set operators',
      'max by (carrier) (a{state="x"}) unless on (carrier) group_left (kind) b and c or d',
      ['a', 'b', 'c', 'd'],
    ],
    ['offset, bool and durations', 'rate(a[5m] offset 1h) > bool 2 * 1.5', ['a']],
    ['strings that look like metrics', 'label_replace(a, "dst", "fake_metric", "src", "(.*)")', ['a']],
    ['a __name__ matcher', '{__name__="named_metric", job="x"}', ['named_metric']],
    ['Grafana variables', 'sum(rate(a{carrier=~"$carrier"}[${__rate_interval}])) / ${divisor}', ['a']],
    ['a function name with a space before its parenthesis', 'absent (a)', ['a']],
    ['keywords in any case', 'SUM BY (x) (a) AND b', ['a', 'b']],
    ['a comment', 'a # b is not here', ['a']],
  ])('%s', (_name, expr, names) => {
    expect([...metricNames(expr)].sort()).toEqual([...names].sort());
  });

  it.each([
    ['label_values(metric, label)', 'label_values(m_total, carrier)', ['m_total']],
    ['label_values(metric{matchers}, label)', 'label_values(m_total{a="b"}, carrier)', ['m_total']],
    ['label_values(label)', 'label_values(carrier)', []],
    ['metrics(regex)', 'metrics(mensajero_.*)', []],
    ['query_result(expr)', 'query_result(topk(3, rate(q_total[5m])))', ['q_total']],
  ])('variable query %s', (_name, query, names) => {
    expect([...variableMetricNames(query)].sort()).toEqual([...names].sort());
  });

  it('refuses what it cannot read rather than guess', () => {
    expect(() => metricNames('sum(a{b="c}')).toThrow(/unterminated|unbalanced/);
  });
});
