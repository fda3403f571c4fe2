import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local Stripe for tests, following Stripe's published formats:
 * - POST /v1/checkout/sessions (https://docs.stripe.com/api/checkout/sessions/create):
 *   form-encoded body with bracketed keys, `Authorization: Bearer <secret key>`,
 *   answers a Checkout Session object (`id` cs_…, `object` "checkout.session", `url`, `amount_total`, …);
 *   errors are `{ "error": { "type", "code", "message" } }` with 401/400/429/5xx.
 * - Idempotency-Key (https://docs.stripe.com/api/idempotent_requests): a repeated key
 *   answers the first request's saved result instead of creating another session.
 * - GET /c/pay/{session id}: the hosted payment page the session's `url` points to.
 * - Events (https://docs.stripe.com/api/events/object) signed like Stripe's webhooks
 *   (https://docs.stripe.com/webhooks#verify-manually): header
 *   `Stripe-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(whsec, "t.body")>`.
 */
export interface StripeSession {
  id: string;
  object: 'checkout.session';
  url: string;
  mode: string;
  status: 'open' | 'complete' | 'expired';
  payment_status: 'unpaid' | 'paid';
  amount_total: number;
  currency: string;
  client_reference_id: string | null;
  metadata: Record<string, string>;
  success_url: string | null;
  cancel_url: string | null;
  payment_intent: string | null;
  product_name: string;
}

export interface TestStripe {
  url: string;
  secretKey: string;
  webhookSecret: string;
  sessions: Map<string, StripeSession>;
  /** Every POST /v1/checkout/sessions received (after failures too). */
  creations: { idempotencyKey: string | undefined; form: URLSearchParams; answered: number }[];
  /** The next n creations answer `status` (500, 502, 503 or 429) without creating anything. */
  failNext(n: number, status: number): void;
  /** The next n creations create their session, then the connection drops before the answer (a lost answer). */
  dropNext(n: number): void;
  /** A signed event, as Stripe would POST it: the raw body and its Stripe-Signature header. */
  signedEvent(
    type: string,
    session: StripeSession,
    opts?: { secret?: string; at?: number; id?: string },
  ): { body: string; signature: string; id: string };
  close(): Promise<void>;
}

/**
 * A session as a real `checkout.session.completed` event carries it: every field of the
 * Checkout Session object (https://docs.stripe.com/api/checkout/sessions/object), filled
 * the way a paid card payment fills them. Such events weigh about 3.5 to 4.5 KB.
 */
export function fullSession(s: StripeSession): StripeSession {
  const address = {
    city: 'Ciudad de México',
    country: 'MX',
    line1: 'Avenida Paseo de la Reforma 222, piso 14',
    line2: 'Colonia Juárez, alcaldía Cuauhtémoc',
    postal_code: '06600',
    state: 'CDMX',
  };
  const full = {
    ...s,
    adaptive_pricing: { enabled: true },
    after_expiration: null,
    allow_promotion_codes: null,
    amount_subtotal: s.amount_total,
    automatic_tax: { enabled: false, liability: null, status: null },
    billing_address_collection: 'auto',
    client_secret: null,
    consent: null,
    consent_collection: null,
    created: Math.floor(Date.now() / 1000) - 120,
    currency_conversion: null,
    custom_fields: [],
    custom_text: {
      after_submit: null,
      shipping_address: null,
      submit: { message: 'Al pagar acepta los términos del servicio y el aviso de privacidad de la empresa.' },
      terms_of_service_acceptance: null,
    },
    customer: null,
    customer_creation: 'if_required',
    customer_details: {
      address,
      email: 'cliente.frecuente@example.com.mx',
      name: 'María Fernanda López Hernández',
      phone: '+525512345678',
      tax_exempt: 'none',
      tax_ids: [],
    },
    customer_email: null,
    expires_at: Math.floor(Date.now() / 1000) + 86_280,
    invoice: null,
    invoice_creation: {
      enabled: false,
      invoice_data: {
        account_tax_ids: null,
        custom_fields: null,
        description: null,
        footer: null,
        issuer: null,
        metadata: {},
        rendering_options: null,
      },
    },
    livemode: false,
    locale: 'es-419',
    payment_link: null,
    payment_method_collection: 'if_required',
    payment_method_configuration_details: { id: 'pmc_1PgT2QLkdIwHu7ixQmZ8cR3d', parent: null },
    payment_method_options: { card: { request_three_d_secure: 'automatic' }, oxxo: { expires_after_days: 3 } },
    payment_method_types: ['card', 'oxxo', 'customer_balance'],
    phone_number_collection: { enabled: false },
    recovered_from: null,
    saved_payment_method_options: {
      allow_redisplay_filters: ['always'],
      payment_method_remove: null,
      payment_method_save: null,
    },
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_details: { address, name: 'María Fernanda López Hernández' },
    shipping_options: [],
    submit_type: 'pay',
    subscription: null,
    tax_id_collection: { enabled: false, required: 'never' },
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    ui_mode: 'hosted',
  };
  return full;
}

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => resolve(body));
  });

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export async function startTestStripe(): Promise<TestStripe> {
  const secretKey = `sk_test_${randomBytes(12).toString('hex')}`;
  const webhookSecret = `whsec_${randomBytes(16).toString('hex')}`;
  const sessions = new Map<string, StripeSession>();
  const saved = new Map<string, { status: number; body: unknown }>();
  const creations: TestStripe['creations'] = [];
  let failures: { n: number; status: number } = { n: 0, status: 500 };
  let drops = 0;
  let base = '';

  const server = createServer(async (req, res) => {
    const body = await read(req);
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path.startsWith('/c/pay/')) {
      const s = sessions.get(path.slice('/c/pay/'.length));
      if (!s) return res.writeHead(404).end('not found');
      return res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(`<title>Stripe Checkout</title><h1>${s.product_name}</h1><p>${s.amount_total} ${s.currency}</p>`);
    }
    if (req.method !== 'POST' || path !== '/v1/checkout/sessions')
      return send(res, 404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
    const form = new URLSearchParams(body);
    const key = req.headers['idempotency-key'] as string | undefined;
    const record = { idempotencyKey: key, form, answered: 0 };
    creations.push(record);
    if (failures.n > 0) {
      failures.n--;
      record.answered = failures.status;
      if (failures.status === 429)
        return send(res, 429, {
          error: { type: 'invalid_request_error', code: 'rate_limit', message: 'Too many requests' },
        });
      return send(res, failures.status, { error: { type: 'api_error', message: 'Something went wrong on our end' } });
    }
    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      record.answered = 401;
      return send(res, 401, {
        error: { type: 'invalid_request_error', code: 'api_key_invalid', message: 'Invalid API Key provided' },
      });
    }
    if (key && saved.has(key)) {
      const first = saved.get(key)!;
      record.answered = first.status;
      return send(res, first.status, first.body, { 'idempotent-replayed': 'true' });
    }
    const amount = Number(form.get('line_items[0][price_data][unit_amount]'));
    const currency = form.get('line_items[0][price_data][currency]');
    const name = form.get('line_items[0][price_data][product_data][name]');
    if (
      form.get('mode') !== 'payment' ||
      !Number.isSafeInteger(amount) ||
      amount < 1 ||
      !currency ||
      !name ||
      form.get('line_items[0][quantity]') !== '1'
    ) {
      record.answered = 400;
      return send(res, 400, {
        error: { type: 'invalid_request_error', code: 'parameter_missing', message: 'Missing required param' },
      });
    }
    const id = `cs_test_${randomBytes(16).toString('hex')}`;
    const session: StripeSession = {
      id,
      object: 'checkout.session',
      url: `${base}/c/pay/${id}`,
      mode: 'payment',
      status: 'open',
      payment_status: 'unpaid',
      amount_total: amount,
      currency,
      client_reference_id: form.get('client_reference_id'),
      metadata: { request_id: form.get('metadata[request_id]') ?? '' },
      success_url: form.get('success_url'),
      cancel_url: form.get('cancel_url'),
      payment_intent: null,
      product_name: name,
    };
    sessions.set(id, session);
    if (key) saved.set(key, { status: 200, body: session });
    if (drops > 0) {
      drops--;
      return req.socket.destroy();
    }
    record.answered = 200;
    send(res, 200, session);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url: base,
    secretKey,
    webhookSecret,
    sessions,
    creations,
    failNext(n, status) {
      failures = { n, status };
    },
    dropNext(n) {
      drops = n;
    },
    signedEvent(type, session, opts = {}) {
      const id = opts.id ?? `evt_${randomBytes(12).toString('hex')}`;
      const at = opts.at ?? Math.floor(Date.now() / 1000);
      // Stripe posts its events pretty-printed, two spaces deep.
      const event = {
        id,
        object: 'event',
        api_version: '2024-06-20',
        created: at,
        data: { object: session },
        livemode: false,
        pending_webhooks: 1,
        request: { id: null, idempotency_key: null },
        type,
      };
      const body = JSON.stringify(event, null, 2);
      const v1 = createHmac('sha256', opts.secret ?? webhookSecret)
        .update(`${at}.${body}`)
        .digest('hex');
      return { body, signature: `t=${at},v1=${v1}`, id };
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
