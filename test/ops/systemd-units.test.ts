import { execFile } from 'node:child_process';
import { accessSync, constants, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.js';
import { parseEnvironmentFile } from '../../src/lib/env-file.js';

const run = promisify(execFile);
const UNITS_DIR = join(import.meta.dirname, '..', '..', 'deploy', 'systemd');
const UNITS = ['mensajero.service', 'mensajero@.service'];
/** Where the units expect the CLI: `npm install -g` of the tarball with Node's prefix /usr/local. */
const INSTALLED_BIN = '/usr/local/bin/mensajero';

function findSystemdAnalyze(): string | null {
  for (const candidate of ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'])
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      /* not there */
    }
  return null;
}

/** The `Key=value` lines of a unit's [Service] section (a key set twice keeps both values). */
function serviceSettings(unit: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  let section = '';
  for (const line of readFileSync(join(UNITS_DIR, unit), 'utf8').split('\n')) {
    if (/^\[.+\]$/.test(line)) section = line;
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (section === '[Service]' && match) settings.set(match[1], [...(settings.get(match[1]) ?? []), match[2]]);
  }
  return settings;
}

describe.each(UNITS)('deploy/systemd/%s', (unit) => {
  const settings = serviceSettings(unit);
  const one = (key: string) => settings.get(key)?.join('\n');

  it('runs `mensajero serve` as its own user with the operator’s environment file', () => {
    expect(one('ExecStart')).toMatch(new RegExp(`${INSTALLED_BIN} serve$`));
    expect(one('User')).toBe('mensajero');
    expect(settings.get('EnvironmentFile')?.[0]).toBe('/etc/mensajero/mensajero.env');
    expect(one('StateDirectory')).toBe('mensajero');
  });

  it('is hardened, restarts on failure and gives a graceful stop its time', () => {
    expect(one('NoNewPrivileges')).toBe('yes');
    expect(one('ProtectSystem')).toBe('strict');
    expect(one('ReadWritePaths')).toBe('/var/lib/mensajero');
    expect(one('PrivateTmp')).toBe('yes');
    expect(one('Restart')).toBe('on-failure');
    expect(one('KillMode')).toBe('mixed');
    expect(Number(one('TimeoutStopSec'))).toBeGreaterThanOrEqual(60);
    expect(Number(one('LimitNOFILE'))).toBeGreaterThanOrEqual(65536);
  });

  it("filters system calls to a service's, failing others with EPERM, and shows it only its own processes in /proc", () => {
    expect(one('SystemCallFilter')).toBe('@system-service');
    expect(one('SystemCallErrorNumber')).toBe('EPERM');
    expect(one('ProtectProc')).toBe('invisible');
    expect(one('ProcSubset')).toBe('pid');
  });
});

it('mensajero@.service takes its PORT from the instance name and runs one process', () => {
  const execStart = serviceSettings('mensajero@.service').get('ExecStart')?.[0];
  expect(execStart).toMatch(/^\/usr\/bin\/env PORT=%i WEB_CONCURRENCY=1 /);
});

it('mensajero.env.example is a configuration the service accepts once its secret is appended', () => {
  // Read as systemd reads it, and as `mensajero --env-file` does.
  const env = parseEnvironmentFile(readFileSync(join(UNITS_DIR, 'mensajero.env.example'), 'utf8'));
  expect(env.MENSAJERO_SECRET).toBeUndefined();
  expect(env).toMatchObject({ SIMULATORS: 'false', DATA_DIR: '/var/lib/mensajero' });
  const read = readConfig({ ...env, MENSAJERO_SECRET: 'ab'.repeat(32) });
  expect('problems' in read ? read.problems : []).toEqual([]);
});

const systemdAnalyze = findSystemdAnalyze();
if (!systemdAnalyze)
  console.warn('systemd-analyze is not installed (Debian package systemd): the units are not verified by systemd');

describe.skipIf(!systemdAnalyze)('systemd-analyze verify', () => {
  // Copies whose ExecStart names a binary that exists here, so that verify checks everything else.
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'mensajero-units-'));
    for (const unit of UNITS)
      writeFileSync(
        join(dir, unit),
        readFileSync(join(UNITS_DIR, unit), 'utf8').replaceAll(INSTALLED_BIN, process.execPath),
      );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  /** Exit code 0 and no line about the unit: verify only warns about unknown keys or bad values. */
  async function verify(name: string, fileStem: string): Promise<{ code: number; complaints: string[] }> {
    const result = await run(systemdAnalyze!, ['verify', join(dir, name)]).then(
      ({ stdout, stderr }) => ({ code: 0, output: stdout + stderr }),
      (err: { code: number; stdout: string; stderr: string }) => ({ code: err.code, output: err.stdout + err.stderr }),
    );
    return { code: result.code, complaints: result.output.split('\n').filter((line) => line.includes(fileStem)) };
  }

  it('accepts mensajero.service', async () => {
    expect(await verify('mensajero.service', 'mensajero')).toEqual({ code: 0, complaints: [] });
  });

  it('accepts an instance of mensajero@.service', async () => {
    expect(await verify('mensajero@3001.service', 'mensajero@')).toEqual({ code: 0, complaints: [] });
  });

  /** `systemd-analyze security --offline`'s overall exposure of a unit file (0 safest, 10 least). */
  async function exposure(name: string): Promise<number> {
    const { stdout } = await run(systemdAnalyze!, ['security', '--offline=true', '--no-pager', join(dir, name)]);
    return Number(/Overall exposure level for \S+: ([\d.]+)/.exec(stdout)?.[1]);
  }

  it.each(['mensajero.service', 'mensajero@3001.service'])(
    'rates %s at an exposure of 2.0 or less (3.2 without the system call filter and /proc settings)',
    async (name) => {
      if (name.includes('@')) copyFileSync(join(dir, 'mensajero@.service'), join(dir, name));
      expect(await exposure(name)).toBeLessThanOrEqual(2);
    },
  );

  it('names a unit with a bad value or a missing binary (the check can fail)', async () => {
    writeFileSync(join(dir, 'broken.service'), '[Service]\nExecStart=/bin/true\nProtectHome=maybe\n');
    expect((await verify('broken.service', 'broken')).complaints.join('\n')).toMatch(/protect home/i);
    writeFileSync(join(dir, 'missing.service'), '[Service]\nExecStart=/nonexistent/mensajero serve\n');
    expect(await verify('missing.service', 'missing')).toMatchObject({ code: 1, complaints: [expect.any(String)] });
  });
});
