/** A submit_sm's source_addr_ton and source_addr_npi. */
export interface AddressType {
  ton: number;
  npi: number;
}

/** The longest sender read as a short code; from 9 digits on it is a full international number. */
export const SHORT_CODE_MAX_DIGITS = 8;

/**
 * The type of a sender, as SMSCs commonly read it when none is configured on
 * the connector: letters (or spaces) make an alphanumeric sender (TON 5,
 * NPI 0); 3 to 8 digits a short code (TON 3 network specific, NPI 0); more
 * digits a full international number with its country code (TON 1, NPI 1
 * E.164); no sender at all TON 0 / NPI 0, the SMSC's default.
 */
export function sourceAddress(sender: string): AddressType {
  if (sender === '') return { ton: 0, npi: 0 };
  if (/\D/.test(sender)) return { ton: 5, npi: 0 };
  if (sender.length <= SHORT_CODE_MAX_DIGITS) return { ton: 3, npi: 0 };
  return { ton: 1, npi: 1 };
}
