import { messageFor } from './codes.js';

/**
 * An error that is a value with the spec's code. The error handler turns it
 * into the common envelope: success false, message, status, code.
 * Features whose endpoints use another envelope (OTP) subclass and override body().
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message?: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? messageFor(code));
    this.name = 'ApiError';
  }

  body(requestId: string): Record<string, unknown> {
    void requestId;
    return { success: false, message: this.message, status: this.status, code: this.code, ...this.extra };
  }
}

/** A 400 with an endpoint-specific code: the common case. */
export const badRequest = (code: string, message?: string, extra?: Record<string, unknown>) =>
  new ApiError(400, code, message, extra);

/** The success envelope: success true, message, status 200, code, plus fields. */
export function ok<T extends Record<string, unknown>>(code: string, message: string, fields?: T) {
  return { success: true as const, message, status: 200, code, ...(fields ?? ({} as T)) };
}
