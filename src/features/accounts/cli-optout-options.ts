import type { Account } from '../../accounts/index.js';
import { MAX_CONFIRMATION } from '../../messaging/optouts.js';
import { isStorable } from '../../text/storable.js';
import { CliError } from '../../cli/runner.js';

/** The opt-out options of `accounts set`. */
export const OPTOUT_OPTIONS = [
  ['--optout-exempt-otp <on|off>', 'OTP codes go out even to opted-out numbers (default off; top-level account)'],
  [
    '--optout-confirmation <text>',
    `text sent back, free, when a reply opts a number out (at most ${MAX_CONFIRMATION} characters), or none`,
  ],
] as const;

/**
 * The opt-out settings the options change, validated. They belong to the
 * family's list, so only a top-level account takes them.
 */
export function optoutChanges(
  o: { optoutExemptOtp?: string; optoutConfirmation?: string },
  account: Account,
): { exemptOtp?: boolean; confirmation?: string | null } | null {
  if (o.optoutExemptOtp === undefined && o.optoutConfirmation === undefined) return null;
  if (account.parent_id !== null)
    throw new CliError('opt-out settings belong to the top-level account: its sub-accounts share its list', {
      code: 'optout_top_level',
    });
  const changes: { exemptOtp?: boolean; confirmation?: string | null } = {};
  if (o.optoutExemptOtp !== undefined) {
    if (o.optoutExemptOtp !== 'on' && o.optoutExemptOtp !== 'off')
      throw new CliError('--optout-exempt-otp is on or off', { code: 'optout_exempt_otp' });
    changes.exemptOtp = o.optoutExemptOtp === 'on';
  }
  if (o.optoutConfirmation !== undefined) {
    const text = String(o.optoutConfirmation).trim();
    if (text === 'none' || text === '') changes.confirmation = null;
    else if ([...text].length > MAX_CONFIRMATION || !isStorable(text))
      throw new CliError(
        `--optout-confirmation is 1 to ${MAX_CONFIRMATION} characters without control characters, or none`,
        { code: 'optout_confirmation', params: { max: MAX_CONFIRMATION } },
      );
    else changes.confirmation = text;
  }
  return changes;
}
