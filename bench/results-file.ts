/** Sections of bench/RESULTS.md: each starts at a `## ` heading and runs to the next one. */
function split(text: string): { preamble: string; sections: Array<{ heading: string; body: string }> } {
  const parts = text.split(/^(?=## )/m);
  const preamble = parts[0].startsWith('## ') ? '' : parts.shift()!;
  return {
    preamble,
    sections: parts.map((body) => ({ heading: body.split('\n', 1)[0].trimEnd(), body })),
  };
}

/** Puts `runLine` (when and on which commit the section was measured) under every `## ` heading of a bench's output. */
export function stampSections(text: string, runLine: string): string {
  return text.replace(/^(## .*)\n/gm, `$1\n\n${runLine}\n`);
}

/**
 * RESULTS.md after a subset run: each section `produced` replaces the one of the same `## ` heading in `existing`,
 * in its place; a section with a new heading is appended; the other sections and the preamble are kept.
 */
export function mergeResults(existing: string, produced: string): string {
  const old = split(existing);
  const fresh = split(produced).sections;
  const ended = (body: string) => (body.endsWith('\n\n') ? body : body.replace(/\n*$/, '\n\n'));
  const bodies = old.sections.map((s) => fresh.find((f) => f.heading === s.heading)?.body ?? s.body);
  const added = fresh.filter((f) => !old.sections.some((s) => s.heading === f.heading)).map((f) => f.body);
  return (old.preamble + [...bodies, ...added].map(ended).join('')).replace(/\n+$/, '\n');
}
