/** A submit_sm's source_addr_ton and source_addr_npi. */
export interface AddressType {
  ton: number;
  npi: number;
}

/**
 * The type of a sender when none is configured on the connector: letters (or
 * spaces) make an alphanumeric sender (TON 5, NPI 0); digits, a short code as
 * much as a long number, TON 1 / NPI 1 (the documented default, which carriers
 * that want short codes typed otherwise override per connector); no sender at
 * all TON 0 / NPI 0, the SMSC's default.
 */
export function sourceAddress(sender: string): AddressType {
  if (sender === '') return { ton: 0, npi: 0 };
  if (/\D/.test(sender)) return { ton: 5, npi: 0 };
  return { ton: 1, npi: 1 };
}
