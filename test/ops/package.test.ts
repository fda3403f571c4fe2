import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAIN, startServe } from '../helpers/cli.js';

// The release artifact: `npm pack`'s tarball, installed into an empty directory as an operator would, with no
// dev dependencies and nothing of this checkout, must run `mensajero serve` and its commands.
const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };
/** npm and node of the running Node first on PATH, as `npm test` has them. */
const PATH = [dirname(process.execPath), process.env.PATH ?? ''].join(delimiter);
const npm = (args: string[], cwd: string) =>
  run('npm', args, { cwd, env: { ...process.env, PATH }, timeout: 200_000, maxBuffer: 16 * 1024 * 1024 });

/** What the tarball must carry to run, and what it must leave out. */
const SHIPPED = [
  'package.json',
  'dist/bundle/main.js',
  'dist/panel-assets/manifest.json',
  'deploy/systemd/mensajero.service',
  'deploy/systemd/mensajero@.service',
  'deploy/prometheus/alerts.yml',
  'docs/operators/production.md',
  'CHANGELOG.md',
];
const LEFT_OUT = /(\.map$|\.ts$|^src\/|^test\/|^bench\/|^scripts\/|^dist\/(src|test|bench)\/)/;

describe('the npm package', () => {
  let dir = '';
  let files: string[] = [];
  let bin = '';
  let service: Awaited<ReturnType<typeof startServe>> | undefined;
  const env = () => ({
    PATH,
    HOME: dir,
    DATABASE_URL: `sqlite:${join(dir, 'data', 'mensajero.db')}`,
    DATA_DIR: join(dir, 'data'),
    LOG_LEVEL: 'warn',
  });

  beforeAll(async () => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build first (npm test does)`);
    dir = mkdtempSync(join(tmpdir(), 'mensajero-package-'));
    // The build is already there (pretest): pack what it made without building again.
    const packed = JSON.parse(
      (await npm(['pack', '--ignore-scripts', '--json', '--pack-destination', dir], root)).stdout,
    );
    files = (packed[0].files as Array<{ path: string }>).map((f) => f.path);
    const app = join(dir, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true }));
    const tarball = join(dir, packed[0].filename as string);
    await npm(['install', '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', tarball], app);
    bin = join(app, 'node_modules', '.bin', 'mensajero');
  }, 300_000);

  afterAll(async () => {
    if (service) {
      service.child.kill('SIGTERM');
      await service.exited;
    }
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('carries the bundle, the panel assets, the deploy files and the docs, and no sources, tests or maps', () => {
    expect(files).toEqual(expect.arrayContaining(SHIPPED));
    expect(files.filter((file) => LEFT_OUT.test(file))).toEqual([]);
  });

  it('installs a `mensajero` command that prints the package version', async () => {
    const { stdout } = await run(bin, ['--version'], { env: env() });
    expect(stdout.trim()).toBe(pkg.version);
  });

  it('serves from the install: ready, an account made with its CLI reads its credits, the panel has its assets', async () => {
    mkdirSync(join(dir, 'data'), { recursive: true });
    const created = run(
      bin,
      ['accounts', 'create', '--email', 'pack@example.com', '--password-stdin'].concat(['--credits', '10', '--json']),
      { env: env() },
    );
    created.child.stdin!.end('Package-test-1\n');
    const account = JSON.parse((await created).stdout) as { apikey: string };

    service = await startServe(env(), [], bin);
    const consult = await fetch(`${service.base}/credits/consult`, {
      method: 'POST',
      headers: { apikey: account.apikey },
    });
    expect(consult.status).toBe(200);
    expect(await consult.json()).toMatchObject({ code: 'credit_01', credit: 10 });

    const panel = await (await fetch(`${service.base}/panel/`)).text();
    const css = /panel\.[0-9a-f]+\.css/.exec(panel)?.[0];
    expect(css).toBeDefined();
    expect((await fetch(`${service.base}/panel/assets/${css}`)).status).toBe(200);
  });
});
