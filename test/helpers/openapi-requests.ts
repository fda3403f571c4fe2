import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/** A request as a client sends it: a JSON body, a form body (all strings) or query parameters (all strings). */
export type RequestShape =
  { json: Record<string, unknown> } | { form: Record<string, string> } | { query: Record<string, string> };

type Operation = {
  requestBody?: { content: Record<string, { schema: object }> };
  parameters?: Array<{ in: string; name: string; required?: boolean; schema: object }>;
};

/**
 * What an Ajv-validating client checks before sending: the request's body or
 * query parameters against the operation's schema in /openapi.json, with the
 * formats of ajv-formats and no coercion (a form or a query string carries
 * strings, so the document must allow them). Returns Ajv's errors as text,
 * or [] when the document allows the request.
 */
export function requestValidator(doc: { paths: Record<string, Record<string, Operation>> }) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  return (method: string, path: string, shape: RequestShape): string[] => {
    const op = doc.paths[path]?.[method];
    if (!op) return [`no operation ${method} ${path}`];
    const [schema, value] = schemaFor(op, shape);
    if (!schema) return [];
    const validate = ajv.compile(schema);
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`);
  };
}

function schemaFor(op: Operation, shape: RequestShape): [object | undefined, unknown] {
  if ('query' in shape) {
    const params = (op.parameters ?? []).filter((p) => p.in === 'query');
    const schema = {
      type: 'object',
      properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
      required: params.filter((p) => p.required).map((p) => p.name),
    };
    return [schema, shape.query];
  }
  const media = 'json' in shape ? 'application/json' : 'application/x-www-form-urlencoded';
  return [op.requestBody?.content[media]?.schema, 'json' in shape ? shape.json : shape.form];
}
