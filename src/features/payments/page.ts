import { formatLocal } from '../../lib/time.js';
import { MAX_AMOUNT, MIN_AMOUNT } from './service.js';
import type { PaymentRequest } from './store.js';

/** Every value rendered into the payment page goes through here. */
export function escapeHtml(value: string): string {
  return value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

export function formatMoney(cents: number, currency: string): string {
  return `${new Intl.NumberFormat('es-MX', { style: 'currency', currency }).format(cents / 100)} ${currency}`;
}

/** Headers of every payment page: never cached, never framed, the token never leaked as a referrer. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
};

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="es"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:2rem auto;padding:0 1rem;color:#222}
.amount{font-size:2rem;font-weight:600;margin:.5rem 0}.note{color:#666}.error{color:#b00020}
button{font-size:1.1rem;padding:.6rem 1.4rem;border:0;border-radius:.4rem;background:#0a7d3b;color:#fff}
input{font-size:1.1rem;padding:.4rem;width:10rem}</style></head>
<body>${body}</body></html>`;
}

export function notFoundPage(): string {
  return layout('Pago no encontrado', '<h1>Pago no encontrado</h1><p class="note">Este enlace de pago no existe.</p>');
}

/** The request's page: its concept, amount and payer; the payment form while it is pending. */
export function paymentPage(request: PaymentRequest, notice?: { error?: string; done?: boolean }): string {
  const parts = [`<h1>${escapeHtml(request.template)}</h1>`];
  if (request.name) parts.push(`<p>Para: <span class="name">${escapeHtml(request.name)}</span></p>`);
  const shownCents = request.paid_amount_cents ?? request.amount_cents;
  if (shownCents !== null) parts.push(`<p class="amount">${escapeHtml(formatMoney(shownCents, request.currency))}</p>`);
  if (notice?.error) parts.push(`<p class="error" role="alert">${escapeHtml(notice.error)}</p>`);
  if (request.status === 'paid') {
    const when = request.paid_at ? ` el ${escapeHtml(formatLocal(request.paid_at))}` : '';
    parts.push(
      `<p class="status paid">${notice?.done ? 'Pago completado' : 'Este pago ya fue completado'}${when}.</p>`,
    );
  } else if (request.checkout_closed_at !== null) {
    // A delayed method (OXXO, SPEI) that was not paid in time closes the checkout too.
    const what =
      request.checkout_closed_reason === 'payment_failed' ? 'El pago no se completó' : 'Este enlace de pago expiró';
    parts.push(`<p class="status closed">${what}. Pide uno nuevo a quien te lo envió.</p>`);
  } else {
    const amountField =
      request.amount_cents === null
        ? `<p><label>Monto (${escapeHtml(request.currency)}) <input name="amount" inputmode="decimal" required min="${MIN_AMOUNT}" max="${MAX_AMOUNT}" step="0.01" type="number"></label></p>`
        : '';
    parts.push(
      `<form method="post" action="/pay/${escapeHtml(request.token)}/complete">${amountField}<button type="submit">Pagar</button></form>`,
    );
    if (request.provider === 'simulator')
      parts.push('<p class="note">Pago simulado: no se realiza ningún cargo real.</p>');
  }
  return layout(`Pago: ${request.template}`, parts.join('\n'));
}
