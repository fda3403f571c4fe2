/**
 * How the Cloud API's answers map to ours. Error codes:
 * https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes
 *
 * Transient (the dispatcher retries with backoff; nothing is charged again):
 * rate limits (4, 80007, 130429, 131056), temporary provider trouble
 * (1, 2, 131000, 131016, 133004), expired or wrong access token (190, 0:
 * an operator fixes it, the message waits rather than being lost), and
 * network errors, HTTP 429 and 5xx.
 *
 * Permanent, with the delivery status recorded (spec, Events):
 * 131047 outside the 24-hour re-engagement window → 4 rejected;
 * 131026 undeliverable, 131049 not delivered to keep engagement healthy → 1 not delivered;
 * 131030 recipient not in the allowed list, 131021 sender is recipient, 368 and 131031 account restricted → 4 rejected;
 * 100, 131008, 131009, 131051, 131052, 131053, 132000–132069 (bad parameter, media or template) → 7 incorrect format;
 * anything else → 8 error.
 */
const TRANSIENT = new Set([0, 1, 2, 4, 80007, 130429, 131000, 131016, 131056, 133004, 190]);

export function classifyError(code: number | undefined, httpStatus: number): { permanent: boolean; status: number } {
  if (code === undefined)
    return httpStatus === 429 || httpStatus >= 500 ? { permanent: false, status: 8 } : { permanent: true, status: 8 };
  if (TRANSIENT.has(code)) return { permanent: false, status: 8 };
  return { permanent: true, status: failedStatus(code) };
}

/** Delivery status of a `failed` status webhook (or a permanent refusal) by its error code. */
export function failedStatus(code: number | undefined): number {
  if (code === 131047) return 4;
  if (code === 131026 || code === 131049) return 1;
  if (code === 131030 || code === 131021 || code === 368 || code === 131031) return 4;
  if (code === 100 || code === 131008 || code === 131009 || code === 131051 || code === 131052 || code === 131053)
    return 7;
  if (code !== undefined && code >= 132000 && code <= 132069) return 7;
  return 8;
}

/**
 * Status webhooks: `delivered` and `read` → 0 delivered (`read` also records
 * a read); `failed` → failedStatus(errors[0].code); `sent` only confirms the
 * hand-over (the message is already sent on our side) and changes nothing.
 */
export function statusCode(status: string, errorCode: number | undefined): number | null {
  if (status === 'delivered' || status === 'read') return 0;
  if (status === 'failed') return failedStatus(errorCode);
  return null;
}
