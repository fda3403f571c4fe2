import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { decrypt, encrypt, loadServerSecret } from './secrets.js';

const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'mensajero-secret-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('server secret', () => {
  it('is generated once into DATA_DIR/secret.key (mode 0600) and then reused', () => {
    const dir = freshDir();
    const first = loadServerSecret(undefined, dir);
    expect(first).toHaveLength(32);
    expect(loadServerSecret(undefined, dir).equals(first)).toBe(true);
    expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['secret.key']);
  });

  it('comes from MENSAJERO_SECRET as hex or base64, and refuses another length', () => {
    const hex = 'ab'.repeat(32);
    expect(loadServerSecret(hex, freshDir()).toString('hex')).toBe(hex);
    expect(loadServerSecret(Buffer.from(hex, 'hex').toString('base64'), freshDir()).toString('hex')).toBe(hex);
    expect(() => loadServerSecret('abcd', freshDir())).toThrow(/32 bytes/);
  });

  it('refuses MENSAJERO_SECRET that is neither strict hex nor canonical base64 of 32 bytes', () => {
    const b64 = Buffer.alloc(32, 0xfb).toString('base64');
    // Node's decoder skips junk characters: each of these used to decode to some 32-byte key.
    for (const loose of [
      `${b64.slice(0, 20)}!!${b64.slice(20)}`,
      `${b64.slice(0, 20)} ${b64.slice(20)}`,
      b64.replace('=', ''),
      `${'ab'.repeat(32)}\n`,
      b64.replace(/\+/g, '-'),
    ]) {
      expect(() => loadServerSecret(loose, freshDir())).toThrow(/canonical base64/);
    }
  });

  it('refuses a damaged secret file instead of using a wrong key', () => {
    const dir = freshDir();
    writeFileSync(join(dir, 'secret.key'), '');
    expect(() => loadServerSecret(undefined, dir)).toThrow(/32-byte secret/);
  });

  it('gives processes that start together on a fresh directory one and the same secret', async () => {
    const dir = join(freshDir(), 'data');
    // The built module (npm test builds first), loaded by separate processes at once.
    const module = resolve(import.meta.dirname, '../../dist/src/lib/secrets.js');
    // Each process loads the module, then spins until the same instant, so their first steps overlap.
    const startAt = Date.now() + 1500;
    const code = `import(${JSON.stringify(module)}).then((m) => { while (Date.now() < ${startAt}); process.stdout.write(m.loadServerSecret(undefined, ${JSON.stringify(dir)}).toString('hex')); })`;
    const run = () =>
      new Promise<string>((ok, fail) =>
        execFile(process.execPath, ['-e', code], (err, out) => (err ? fail(err) : ok(out))),
      );
    const secrets = await Promise.all(Array.from({ length: 8 }, run));
    expect(new Set(secrets).size).toBe(1);
    expect(secrets[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(readdirSync(dir)).toEqual(['secret.key']);
  });

  it('seals and opens values with AES-256-GCM, refusing a tampered one', () => {
    const key = loadServerSecret('cd'.repeat(32), freshDir());
    const sealed = encrypt(key, 'mns_secret');
    expect(decrypt(key, sealed)).toBe('mns_secret');
    const raw = Buffer.from(sealed, 'base64');
    raw[raw.length - 1] ^= 1;
    expect(() => decrypt(key, raw.toString('base64'))).toThrow();
  });
});
