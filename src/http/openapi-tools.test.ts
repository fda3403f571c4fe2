import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import SwaggerParser from '@apidevtools/swagger-parser';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEngines, startHarness, type Harness } from '../../test/helpers/harness.js';
import { operationId } from './openapi.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

describe('/openapi.json with real OpenAPI tools', () => {
  let h: Harness;
  let doc: Record<string, any>;
  let dir: string;
  beforeAll(async () => {
    h = await startHarness('sqlite', { worker: false, env: { PUBLIC_BASE_URL: 'https://sms.mensajero.test' } });
    doc = (await h.get('/openapi.json')).body;
    dir = mkdtempSync(join(ROOT, '.tmp-openapi-'));
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('validates with @apidevtools/swagger-parser', async () => {
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  it('lints with @redocly/cli (recommended rules) without errors or warnings', async () => {
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(doc));
    const cli = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
    // Telemetry and the update check would reach the internet: both off.
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' };
    const { stdout } = await run(process.execPath, [cli, 'lint', file, '--format=json', '--max-problems=1000'], {
      env,
      cwd: dir,
    }).catch((err) => err as { stdout: string });
    const problems = (
      JSON.parse(stdout) as {
        problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>;
      }
    ).problems;
    expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('gives every operation a unique operationId, 4xx answers, and the form body beside JSON', () => {
    const ids: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(item)) {
        ids.push(op.operationId);
        expect(
          Object.keys(op.responses).some((s) => s.startsWith('4')),
          `${method} ${path}`,
        ).toBe(true);
        if (op.requestBody)
          expect(Object.keys(op.requestBody.content), `${method} ${path}`).toEqual([
            'application/json',
            'application/x-www-form-urlencoded',
          ]);
      }
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect(operationId('POST', '/protected/:format/phones/verification/start')).toBe(
      'postProtectedFormatPhonesVerificationStart',
    );
    expect(doc.servers).toEqual([{ url: 'https://sms.mensajero.test', description: expect.any(String) }]);
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
  });

  it('describes /sms/send as requests can be: channel as text or integer (not both at once), defaulted fields not required', () => {
    const body = doc.paths['/sms/send'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['numbers', 'message']);
    expect(body.properties.channel).toEqual({
      anyOf: [
        { type: 'string', enum: ['1', '2'] },
        { type: 'integer', enum: [1, 2] },
      ],
      description: 'default 1',
    });
    // Every form the service takes: clients send country_code as a JSON number as often as text.
    expect(body.properties.country_code.type).toEqual(['string', 'number', 'boolean']);
    const otp = doc.paths['/v2/otp'].post.requestBody.content['application/json'].schema;
    expect(otp.required).toEqual(['phone_number', 'country_code']);
  });
});

/** The client an integrator would write from the generated types: one SMS, one OTP verified. */
const CLIENT = `
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function run(baseUrl: string, apikey: string, phone: string) {
  const client = createClient<paths>({ baseUrl, headers: { apikey } });
  const sms = await client.POST('/sms/send', { body: { numbers: '5512345678', message: 'Hola desde el cliente generado', showCampaignId: '1' } });
  const otp = await client.POST('/v2/otp', { body: { phone_number: phone, country_code: 52, company: 'Acme', code_show: '1' } });
  const code: string | undefined = otp.data?.code;
  const verified = await client.POST('/v2/otp/verify', { body: { phone_number: phone, country_code: '52', code: code ?? '' } });
  const state: string | undefined = verified.data?.state;
  return { sms: sms.data, otp: otp.data, state };
}
`;

describeEngines('a typed client generated from /openapi.json (openapi-typescript + openapi-fetch)', (engine) => {
  let h: Harness;
  let dir: string;
  beforeAll(async () => {
    h = await startHarness(engine, { listen: true });
    dir = mkdtempSync(join(ROOT, '.tmp-typed-client-'));
  });
  afterAll(async () => {
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('type-checks against the generated types, sends an SMS and completes an OTP', async () => {
    const live = await (await fetch(`${h.config.publicBaseUrl}/openapi.json`)).json();
    writeFileSync(join(dir, 'api.ts'), astToString(await openapiTS(live)));
    writeFileSync(join(dir, 'client.ts'), CLIENT);
    writeFileSync(join(dir, 'package.json'), '{"type": "module"}');

    const program = ts.createProgram([join(dir, 'client.ts')], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      skipLibCheck: true,
      types: [],
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
    });
    const diagnostics = ts
      .getPreEmitDiagnostics(program)
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(diagnostics).toEqual([]);

    const a = await h.createAccount(10);
    const client = (await import(pathToFileURL(join(dir, 'client.ts')).href)) as {
      run: (b: string, k: string, p: string) => Promise<any>;
    };
    const result = await client.run(h.config.publicBaseUrl, a.apikey, '5587654321');
    expect(result.sms).toMatchObject({
      success: true,
      code: 'sms_11',
      total_messages: 1,
      campaignId: expect.any(Number),
    });
    expect(result.otp).toMatchObject({ success: true, action: 'created', code: expect.stringMatching(/^\d{6}$/) });
    expect(result.state).toBe('verified');
  });
});
