// The repository documents itself: its pages, comments and scripts point at its own docs, never at a file outside
// it; and the changelog's newest version is the one package.json (and `mensajero --version`) carries.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const THIS_FILE = relative(ROOT, fileURLToPath(import.meta.url));

/** Files of the repository a reader opens: docs, sources, tests, scripts, deploy files, benches. */
function repositoryFiles(dir = ROOT): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (['node_modules', 'dist', 'data', 'coverage'].includes(entry.name)) return [];
    if (entry.name.startsWith('.') && entry.name !== '.ci') return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return repositoryFiles(path);
    const file = relative(ROOT, path);
    return /\.(md|ts|mjs|js|json|yml|yaml|service|sh)$|^run$/.test(entry.name) && file !== THIS_FILE ? [file] : [];
  });
}

/** Documents of the interface's authors, not part of the repository: its docs say all a reader needs. */
const OUTSIDE_FILES = [
  'CONTRACT.md',
  'service-interface.md',
  'legacy-shapes.md',
  'DESIGN.md',
  '`spec/',
  ' spec/',
  '(spec/',
];

describe('the repository names no file outside it', () => {
  it.each(OUTSIDE_FILES)('no file names %s', (name) => {
    const naming = repositoryFiles().filter((file) => read(file).includes(name));
    expect(naming).toEqual([]);
  });

  it('nor "the contract" as a document: comments name the docs page', () => {
    const naming = repositoryFiles().filter((file) =>
      /\bCONTRACT\b|the contract (says|asks|names|fixes)/.test(read(file)),
    );
    expect(naming).toEqual([]);
  });
});

describe('CHANGELOG.md', () => {
  const changelog = read('CHANGELOG.md');
  const versions = [...changelog.matchAll(/^## \[([^\]]+)\](?: - (\d{4}-\d{2}-\d{2}))?$/gm)].map((m) => ({
    version: m[1]!,
    date: m[2],
  }));
  const pkg = JSON.parse(read('package.json')) as { version: string };

  it('keeps an Unreleased section on top for what comes after the last release', () => {
    expect(versions[0]).toEqual({ version: 'Unreleased', date: undefined });
  });

  it("has package.json's version as its newest release, dated", () => {
    expect(versions[1]?.version).toBe(pkg.version);
    expect(versions[1]?.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('lists versions newest first, each a semantic version', () => {
    const released = versions.slice(1).map((v) => v.version);
    for (const version of released) expect(version).toMatch(/^\d+\.\d+\.\d+$/);
    const order = (v: string) => v.split('.').reduce((sum, part) => sum * 1000 + Number(part), 0);
    expect(released.map(order)).toEqual(released.map(order).sort((a, b) => b - a));
  });
});
