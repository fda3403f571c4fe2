// Where the suite's time goes, from vitest's JSON report (`npm test -- --reporter=default --reporter=json
// --outputFile.json=FILE`): the time of each folder (src/<module>, test/<folder>) summed over its files, and the
// slowest files. Given a second report, each figure of the first is followed by the second's, to compare a change.
//   node scripts/suite-times.mjs BEFORE.json [AFTER.json] [--top N]
// A file's time is its wall time in its fork (endTime - startTime): files run two at a time, so the folders' sum is
// about twice the run's wall time. On a machine other processes load, compare folders with each other, not runs.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 40;
if (args.length < 1 || args.length > 2 || !Number.isInteger(top) || top < 1) {
  console.error('usage: node scripts/suite-times.mjs BEFORE.json [AFTER.json] [--top N]');
  process.exit(2);
}

/** Seconds per test file, by its path from the repository, and the run's wall time. */
function report(path) {
  const json = JSON.parse(readFileSync(path, 'utf8'));
  const files = new Map();
  for (const r of json.testResults) files.set(relative(process.cwd(), r.name), (r.endTime - r.startTime) / 1000);
  const ends = json.testResults.map((r) => r.endTime);
  const wall = ends.length ? (Math.max(...ends) - json.startTime) / 1000 : 0;
  return { files, wall, tests: json.numTotalTests, failed: json.numFailedTests };
}

const folderOf = (file) => file.split('/').slice(0, 2).join('/');
const byFolder = (files) => {
  const folders = new Map();
  for (const [file, s] of files) folders.set(folderOf(file), (folders.get(folderOf(file)) ?? 0) + s);
  return folders;
};

const runs = args.map(report);
const fmt = (s) => (s === undefined ? '-' : s.toFixed(1)).padStart(8);
const row = (name, pick) => console.log(`${runs.map((r) => fmt(pick(r))).join('')}  ${name}`);
const header = (title) =>
  console.log(`\n${runs.map((_, i) => (i ? 'after s' : 'before s').padStart(8)).join('')}  ${title}`);

header('run');
row('wall time, start of the run to its last file', (r) => r.wall);
for (const r of runs) console.log(`${r.tests} tests, ${r.failed} failed, ${r.files.size} files`);

const folders = runs.map((r) => byFolder(r.files));
header('folder (sum of its files)');
for (const name of [...folders[0].keys()].sort((a, b) => folders[0].get(b) - folders[0].get(a)))
  row(name, (r) => folders[runs.indexOf(r)].get(name));

header(`slowest ${top} files`);
for (const [file] of [...runs[0].files].sort((a, b) => b[1] - a[1]).slice(0, top)) row(file, (r) => r.files.get(file));
