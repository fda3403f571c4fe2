// The field-by-field API reference as one static page: the OpenAPI document the service serves at /openapi.json
// (built here without listening or starting workers, on a throw-away SQLite database), rendered by @redocly/cli's
// build-docs. Writes dist/docs/openapi.json and dist/docs/api-reference.html (generated, not committed).
// Run after `npm run build` (`npm run docs:api` does both). PUBLIC_BASE_URL, when set, becomes the document's server.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const out = join(root, 'dist', 'docs');
const { loadConfig } = await import(join(root, 'dist', 'src', 'config.js'));
const { startService } = await import(join(root, 'dist', 'src', 'app', 'serve.js'));

/** The document exactly as `GET /openapi.json` answers it. */
async function openapiDocument() {
  const dataDir = mkdtempSync(join(tmpdir(), 'mensajero-api-docs-'));
  const env = { DATABASE_URL: 'sqlite::memory:', DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
  if (process.env.PUBLIC_BASE_URL) env.PUBLIC_BASE_URL = process.env.PUBLIC_BASE_URL;
  const service = await startService(loadConfig(env), { listen: false, worker: false });
  try {
    const res = await service.app.inject({ method: 'GET', url: '/openapi.json' });
    if (res.statusCode !== 200) throw new Error(`/openapi.json answered ${res.statusCode}`);
    return res.json();
  } finally {
    await service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

mkdirSync(out, { recursive: true });
const spec = join(out, 'openapi.json');
const page = join(out, 'api-reference.html');
writeFileSync(spec, JSON.stringify(await openapiDocument(), null, 2));
const redocly = join(root, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
// Telemetry and the update check would reach the internet: both off, so the page builds offline; --inlineBundle
// puts Redoc's script in the page, which then opens without reaching Redocly's CDN either.
const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' };
const args = ['build-docs', spec, '--output', page, '--inlineBundle', '--title', 'Mensajero API reference'];
execFileSync(process.execPath, [redocly, ...args], { env, stdio: 'ignore' });
console.log(JSON.stringify({ openapi: spec, reference: page }));
