import { describe, expect, it } from 'vitest';
import { mergeResults, stampSections } from '../../bench/results-file.js';

const file = [
  '# Benchmark results',
  '',
  'Top comment.',
  '',
  '## Foundation',
  '',
  'old foundation',
  '',
  '## SMS 10(a): sends',
  '',
  'old sms',
  '',
  '### The same on PostgreSQL',
  '',
  'old sms pg',
  '',
  '## Memory',
  '',
  'old memory',
  '',
].join('\n');

describe('bench/RESULTS.md after a subset run', () => {
  it('replaces the sections run, in their place, with their subsections, and keeps the others and the top comment', () => {
    const produced = stampSections('## SMS 10(a): sends\n\nnew sms\n', 'Run on 2026-12-07, commit abc1234.');
    const merged = mergeResults(file, produced);
    expect(merged).toBe(
      [
        '# Benchmark results',
        '',
        'Top comment.',
        '',
        '## Foundation',
        '',
        'old foundation',
        '',
        '## SMS 10(a): sends',
        '',
        'Run on 2026-12-07, commit abc1234.',
        '',
        'new sms',
        '',
        '## Memory',
        '',
        'old memory',
        '',
      ].join('\n'),
    );
  });

  it('appends a section whose heading the file does not have yet, and stamps every section a bench prints', () => {
    const produced = stampSections('## Cost\n\nratio\n\n## Cost, part two\n\nmore\n', 'Run on X.');
    expect(produced).toBe('## Cost\n\nRun on X.\n\nratio\n\n## Cost, part two\n\nRun on X.\n\nmore\n');
    const merged = mergeResults(file, produced);
    expect(merged.startsWith(file)).toBe(true);
    expect(merged.slice(file.length)).toBe(
      '\n## Cost\n\nRun on X.\n\nratio\n\n## Cost, part two\n\nRun on X.\n\nmore\n',
    );
  });
});
