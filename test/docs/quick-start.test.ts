// The README's quick start and five-minute tour are what CI runs: `.ci/run` installs with `npm ci`, runs `npm test`
// and scripts/smoke.mjs, which takes the tour's steps from scripts/quick-start.json. Here the README's commands are
// checked against that file, so a tour that stops working fails CI instead of a newcomer.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

interface Tour {
  account: string[];
  password: string;
  send: { path: string; body: Record<string, string> };
  report: { path: string; days: number[] };
  panel: string;
}

const tour = JSON.parse(read('scripts/quick-start.json')) as Tour;

/** The text of a `## title` section of a Markdown page, up to the next `## `. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start === -1) throw new Error(`no section "${title}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

/** The lines of a section's fenced `sh` blocks. */
function shellLines(text: string): string[] {
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n').filter((l) => l.trim() !== ''));
}

/** The words of a shell command without quotes (the tour's commands quote only whole words). */
function words(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]!);
}

/** A tour's curl: the path it posts to and its JSON body. */
function curl(line: string): { path: string; body: Record<string, string> } {
  const w = words(line);
  const url = w.find((word) => word.startsWith('localhost:3000/'))!;
  return { path: url.slice('localhost:3000'.length), body: JSON.parse(w[w.indexOf('-d') + 1]!) };
}

const readme = read('README.md');

describe("the README's quick start", () => {
  it('is the two commands: npm ci && npm start, and npm test', () => {
    expect(shellLines(section(readme, 'Quick start'))).toEqual(['npm ci && npm start', 'npm test']);
  });

  it('is what CI runs: .ci/run installs with npm ci, runs npm test and the tour', () => {
    const ci = read('.ci/run');
    expect(ci).toMatch(/^npm ci\b/m);
    expect(ci).toMatch(/^npm test\b/m);
    expect(ci).toMatch(/node scripts\/smoke\.mjs/);
    const smoke = read('scripts/smoke.mjs');
    // `npm start` is `serve` of the built CLI; the smoke run starts the same, and follows quick-start.json.
    // Both run the esbuild bundle (scripts/build-bundle.mjs), as does the `mensajero` command.
    const pkg = JSON.parse(read('package.json'));
    expect(pkg.scripts.start).toBe('node dist/bundle/main.js serve');
    expect(pkg.bin.mensajero).toBe('dist/bundle/main.js');
    expect(smoke).toContain("join(import.meta.dirname, '..', 'dist', 'bundle', 'main.js')");
    expect(smoke).toContain("spawn(process.execPath, [main, 'serve']");
    expect(smoke).toContain("'quick-start.json'");
  });
});

describe("the README's five-minute tour runs the smoke run's steps", () => {
  const lines = shellLines(section(readme, 'Five-minute tour'));

  it('creates the account with the same command and password', () => {
    const line = lines.find((l) => l.includes('npx mensajero '))!;
    const [input, command] = line.split(' | ');
    expect(words(input!)).toEqual(['echo', tour.password]);
    expect(words(command!)).toEqual(['npx', 'mensajero', ...tour.account, '--json']);
  });

  it('sends the same message and asks for the same report', () => {
    const [send, report] = lines.filter((l) => l.startsWith('curl ')).map(curl);
    expect(send).toEqual(tour.send);
    expect(report!.path).toBe(tour.report.path);
    expect(Object.keys(report!.body)).toEqual(['start_date', 'end_date']);
    for (const date of Object.values(report!.body)) expect(date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    // The README's dates are a day either side of one day, as the smoke run's.
    const [from, to] = Object.values(report!.body).map((d) => Date.parse(d) / 86_400_000);
    expect(to! - from!).toBe(tour.report.days[1]! - tour.report.days[0]!);
  });

  it('opens the panel the smoke run opens', () => {
    expect(section(readme, 'Five-minute tour')).toContain(`<http://localhost:3000${tour.panel}>`);
  });
});

describe("the README's Node.js lines", () => {
  it('are the ones CI runs and package.json accepts', () => {
    const node = section(readme, 'Node.js').replace(/\s+/g, ' ');
    const oldest = /^NODE_OLDEST="([\d.]+)"$/m.exec(read('.ci/run'))![1]!;
    expect(node).toContain(`Node ${read('.nvmrc').trim()} (\`.nvmrc\`)`);
    expect(node).toContain(`on Node ${oldest}`);
    expect(node).toContain(`(\`engines\` \`${JSON.parse(read('package.json')).engines.node}\``);
  });
});
