/**
 * Call statuses of the status callback (https://www.twilio.com/docs/voice/api/call-resource#call-status-values)
 * → spec delivery status: completed → 0 delivered; busy → 2 temporary
 * disconnection; no-answer → 1 not delivered; failed → 6 unknown number when
 * the ErrorCode says the number is invalid (13224, 13225, 21211, 21214), else
 * 1 not delivered; canceled → 4 rejected. queued, initiated, ringing and
 * in-progress are not final and change nothing.
 */
export function callStatusCode(status: string, errorCode: string | undefined): number | null {
  switch (status) {
    case 'completed':
      return 0;
    case 'busy':
      return 2;
    case 'no-answer':
      return 1;
    case 'failed':
      return errorCode && ['13224', '13225', '21211', '21214'].includes(errorCode) ? 6 : 1;
    case 'canceled':
      return 4;
    default:
      return null;
  }
}

/**
 * Create-call errors (https://www.twilio.com/docs/api/errors): HTTP 429 and
 * 5xx, network errors and 20003 (authentication: an operator fixes it, the
 * call waits) are transient; 21211/21214 invalid or unreachable To → 7
 * incorrect format / 6 unknown number; 21215/21216/13227 geographic
 * permission or blocked → 4 rejected; any other 4xx → 8 error.
 */
export function classifyCreateError(
  httpStatus: number,
  code: number | undefined,
): { permanent: boolean; status: number } {
  if (httpStatus === 429 || httpStatus >= 500 || code === 20003 || code === 20429)
    return { permanent: false, status: 8 };
  if (code === 21211) return { permanent: true, status: 7 };
  if (code === 21214) return { permanent: true, status: 6 };
  if (code === 21215 || code === 21216 || code === 13227) return { permanent: true, status: 4 };
  return { permanent: true, status: 8 };
}
