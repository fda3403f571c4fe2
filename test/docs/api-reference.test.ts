// `npm run docs:api`: the field-by-field API reference as one static page, generated from the OpenAPI document the
// service serves (not written by hand). Needs the build (`npm test` builds first).
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

describe('scripts/build-api-docs.mjs', () => {
  let written: { openapi: string; reference: string };
  let doc: { info: { title: string }; paths: Record<string, Record<string, { operationId: string }>> };
  let page: string;
  beforeAll(async () => {
    const { stdout } = await run(process.execPath, [join(ROOT, 'scripts/build-api-docs.mjs')], {
      cwd: ROOT,
      env: { ...process.env, PUBLIC_BASE_URL: 'https://sms.mensajero.test' },
    });
    written = JSON.parse(stdout);
    doc = JSON.parse(readFileSync(written.openapi, 'utf8'));
    page = readFileSync(written.reference, 'utf8');
  }, 120_000);

  it('writes the document /openapi.json serves, with the given public address as its server', () => {
    expect(written).toEqual({
      openapi: join(ROOT, 'dist/docs/openapi.json'),
      reference: join(ROOT, 'dist/docs/api-reference.html'),
    });
    expect(doc).toMatchObject({
      openapi: expect.stringMatching(/^3\.1\./),
      servers: [{ url: 'https://sms.mensajero.test' }],
    });
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/sms/send', '/v2/otp', '/reports/generate']));
  });

  it('renders every operation into one page that needs no network', () => {
    const operations = Object.values(doc.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(operations.length).toBeGreaterThan(50);
    expect(operations.filter((id) => !page.includes(id))).toEqual([]);
    expect(page).toContain('<title>Mensajero API reference</title>');
    // Redoc's script is inlined: no <script src> to a CDN.
    expect(page).not.toMatch(/<script[^>]+src=["']https?:/);
  });

  it('leaves no endpoint without a page: every path of the document is in docs/api or docs/operators', () => {
    // Placeholders are compared without their names: /pay/{token}/complete is written /pay/{id}/complete.
    const bare = (text: string) => text.replace(/\{[^}\n]*\}/g, '{}');
    const pages = ['docs/api', 'docs/operators'].flatMap((dir) =>
      readdirSync(join(ROOT, dir)).map((name) => bare(readFileSync(join(ROOT, dir, name), 'utf8'))),
    );
    const undocumented = Object.keys(doc.paths).filter((path) => !pages.some((page) => page.includes(bare(path))));
    expect(undocumented).toEqual([]);
  });
});
