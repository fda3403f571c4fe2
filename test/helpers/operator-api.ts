import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { fetch } from 'undici';
import { startHarness, type EngineName, type Harness } from './harness.js';
import { operatorOpenApi } from '../../src/operator-api/openapi.js';
import { addOperatorToken } from '../../src/operator-api/tokens.js';

export interface ApiReply {
  status: number;
  body: any;
  headers: Headers;
}

type Doc = ReturnType<typeof operatorOpenApi>;

/**
 * Checks an answer of the operator API against its OpenAPI document: the operation's answer for the status (its
 * schema, with ajv-formats), or fails. Every call of `operatorClient` goes through it, so every answer a test gets
 * is checked.
 */
export function responseValidator(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'doc', components: doc.components });
  const paths = Object.entries(doc.paths).map(([template, ops]) => ({
    re: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    ops: ops as Record<string, { responses: Record<string, any> }>,
  }));
  return (method: string, path: string, status: number, body: unknown): string[] => {
    const entry = paths.find((p) => p.re.test(path.split('?')[0]));
    const op = entry?.ops[method.toLowerCase()];
    if (!op) return status === 404 ? [] : [`no operation ${method} ${path}`];
    const answer = op.responses[String(status)];
    if (!answer) return [`${method} ${path}: status ${status} is not documented`];
    const schema = JSON.parse(JSON.stringify(answer.content['application/json'].schema).replaceAll('"#/', '"doc#/'));
    const validate = ajv.compile(schema);
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${method} ${path} ${e.instancePath} ${e.message}`);
  };
}

export interface OperatorApi {
  h: Harness;
  base: string;
  /** Every answer checked against the document (a 404 of an unknown route excepted). */
  call(
    method: string,
    path: string,
    o?: { token?: string; body?: unknown; headers?: Record<string, string> },
  ): Promise<ApiReply>;
  token(name: string, readOnly?: boolean): Promise<string>;
  validated: number;
}

/** A listening service on the engine and a client of its operator API. */
export async function startOperatorApi(engine: EngineName, env: Record<string, string> = {}): Promise<OperatorApi> {
  const h = await startHarness(engine, { listen: true, worker: false, env });
  const check = responseValidator(operatorOpenApi());
  const api: OperatorApi = {
    h,
    base: h.config.publicBaseUrl,
    validated: 0,
    async call(method, path, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      if (o.token) headers.authorization = `Bearer ${o.token}`;
      if (o.body !== undefined) headers['content-type'] = 'application/json';
      const res = await fetch(`${api.base}/operator/v1${path}`, {
        method,
        headers,
        body: o.body === undefined ? undefined : JSON.stringify(o.body),
      });
      const text = await res.text();
      const body = text === '' ? undefined : JSON.parse(text);
      const problems = check(method, path, res.status, body);
      if (problems.length > 0)
        throw new Error(`answer not as documented: ${problems.join('; ')} ${text.slice(0, 300)}`);
      api.validated++;
      return { status: res.status, body, headers: res.headers as unknown as Headers };
    },
    async token(name, readOnly = false) {
      return (await addOperatorToken(h.ctx.db.kysely, name, readOnly)).token;
    },
  };
  return api;
}
