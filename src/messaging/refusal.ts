/**
 * Why the acceptance step (accept.ts) or the writer of a send refuses it, whatever protocol asked: each front end
 * maps the code to its own answer (HTTP: src/features/sms/refusals.ts; SMPP: src/smpp-server/refusals.ts).
 */
export const REFUSAL_CODES = [
  'empty_text',
  'no_numbers',
  'too_many_numbers',
  'no_country_code',
  'unsupported_country_code',
  'malformed_number',
  'unsupported_line',
  'repeated_number',
  'sender_required',
  'sender_not_rcs',
  'insufficient_credits',
  'sandbox_limit',
  'malformed_date',
  'past_date',
] as const;

export type RefusalCode = (typeof REFUSAL_CODES)[number];

/** What a refusal says of its cause: the number refused, as written (at most 20 characters). */
export interface RefusalDetails {
  number?: string;
}

/** A send refused as asked: nothing was written. */
export class Refusal extends Error {
  constructor(
    readonly code: RefusalCode,
    readonly details: RefusalDetails = {},
  ) {
    super(`send refused: ${code}`);
    this.name = 'Refusal';
  }
}
