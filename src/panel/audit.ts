import type { FastifyRequest } from 'fastify';
import { shownEmail } from '../accounts/subaccount-email.js';
import type { AuditInput } from '../audit/service.js';

/** The fields of an operator's form that name what it changed, in the order they are looked for. */
const TARGET_FIELDS = ['email', 'system_id', 'number', 'name', 'id'];

/** Who an operator's form action is, as the audit log and the credit ledger name them: `panel:EMAIL`. */
export const panelActor = (request: FastifyRequest): string =>
  `panel:${shownEmail(request.panelSession?.operator?.email ?? '')}`;

/**
 * The audit entry of an operator's form action that succeeded: `panel:EMAIL`, the action's name (`accounts.credits`;
 * `operator.<form>` when the page names none), the form's fields without the CSRF token or any secret (recordAudit
 * drops them by name) and the address it came from. Account holders' own actions are not recorded.
 */
export function panelAuditEntry(
  request: FastifyRequest,
  form: string,
  action: string | undefined,
): AuditInput | undefined {
  const operator = request.panelSession?.operator;
  if (!operator) return undefined;
  const body = (request.body ?? {}) as Record<string, unknown>;
  const target = TARGET_FIELDS.find((f) => typeof body[f] === 'string' && body[f] !== '');
  return {
    actor: panelActor(request),
    action: action ?? `operator.${form}`,
    target: target ? String(body[target]) : null,
    detail: body,
    address: request.ip,
  };
}
