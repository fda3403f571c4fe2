/* The metric names a PromQL expression (or a Grafana variable query) names: what an ops test checks against /metrics. */

/** Words of PromQL that are not metric names when they stand alone (aggregations, set operators, modifiers, literals). */
const KEYWORDS = new Set([
  'sum',
  'min',
  'max',
  'avg',
  'group',
  'stddev',
  'stdvar',
  'count',
  'count_values',
  'bottomk',
  'topk',
  'quantile',
  'limitk',
  'limit_ratio',
  'and',
  'or',
  'unless',
  'atan2',
  'bool',
  'offset',
  'inf',
  'nan',
]);

/** Modifiers followed by a list of label names in parentheses. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

const IDENTIFIER = /[a-zA-Z_:][a-zA-Z0-9_:]*/y;
const NUMBER = /(0x[0-9a-fA-F]+|[0-9]*\.?[0-9]+([eE][+-]?[0-9]+)?)([a-zA-Z]+[0-9]*)*/y;

/** Index just past the string literal that starts at `i`. */
function skipString(s: string, i: number): number {
  const quote = s[i];
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '\\' && quote !== '`') j++;
    else if (s[j] === quote) return j + 1;
  }
  throw new Error(`unterminated string in ${s}`);
}

/** Index just past the bracket that closes the one at `i`, strings skipped. */
function skipBracket(s: string, i: number): number {
  const close = { '{': '}', '[': ']', '(': ')' }[s[i]]!;
  for (let j = i + 1; j < s.length; j++) {
    if (s[j] === '"' || s[j] === "'" || s[j] === '`') j = skipString(s, j) - 1;
    else if (s[j] === close) return j + 1;
  }
  throw new Error(`unbalanced ${s[i]} in ${s}`);
}

/** A `{__name__="…"}` matcher names a metric too. */
function nameMatcher(matchers: string): string | null {
  return /__name__\s*=\s*"([a-zA-Z_:][a-zA-Z0-9_:]*)"/.exec(matchers)?.[1] ?? null;
}

const nextNonSpace = (s: string, i: number) => {
  while (i < s.length && /\s/.test(s[i])) i++;
  return i;
};

/**
 * The metric names in a PromQL expression: identifiers that are not followed
 * by `(` (functions, aggregations with parameters), not keywords, and not in
 * a label list (`by (le)`, `on (carrier)`) or a matcher (`{status="5.."}`).
 * Strings, ranges, comments and Grafana's `$variables` are skipped.
 */
export function metricNames(expr: string): Set<string> {
  const names = new Set<string>();
  let i = 0;
  while (i < expr.length) {
    const c = expr[i];
    if (/\s/.test(c)) i++;
    else if (c === '#') i = expr.includes('\n', i) ? expr.indexOf('\n', i) : expr.length;
    else if (c === '"' || c === "'" || c === '`') i = skipString(expr, i);
    else if (c === '{') {
      const end = skipBracket(expr, i);
      const named = nameMatcher(expr.slice(i, end));
      if (named) names.add(named);
      i = end;
    } else if (c === '[') i = skipBracket(expr, i);
    else if (c === '$')
      i = expr[i + 1] === '{' ? skipBracket(expr, i + 1) : i + 1 + /^\w*/.exec(expr.slice(i + 1))![0].length;
    else if (/[0-9.]/.test(c)) {
      NUMBER.lastIndex = i;
      i = NUMBER.exec(expr) ? NUMBER.lastIndex : i + 1;
    } else if (/[a-zA-Z_:]/.test(c)) {
      IDENTIFIER.lastIndex = i;
      const word = IDENTIFIER.exec(expr)![0];
      i += word.length;
      const next = nextNonSpace(expr, i);
      if (LABEL_LISTS.has(word.toLowerCase())) {
        if (expr[next] === '(') i = skipBracket(expr, next);
      } else if (expr[next] !== '(' && !KEYWORDS.has(word.toLowerCase())) names.add(word);
    } else i++;
  }
  return names;
}

/**
 * The metric names of a Grafana Prometheus variable query: `label_values(metric, label)`,
 * `metrics(regex)` (none), `query_result(expr)`, or `label_values(label)` (none).
 */
export function variableMetricNames(query: string): Set<string> {
  const q = query.trim();
  const labelValues = /^label_values\(\s*(.*?)\s*,\s*[a-zA-Z_][a-zA-Z0-9_]*\s*\)$/s.exec(q);
  if (labelValues) return metricNames(labelValues[1]);
  if (/^(label_values|label_names|metrics)\(/.test(q)) return new Set();
  const result = /^query_result\((.*)\)$/s.exec(q);
  return metricNames(result ? result[1] : q);
}
