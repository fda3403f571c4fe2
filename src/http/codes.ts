/**
 * Human-readable messages for error codes. The code is the contract; the
 * message helps the person reading it. Features add their codes here so that
 * searching for a code finds both its rule (where it is thrown) and its text.
 */
const messages: Record<string, string> = {
  // common layer
  auth_05: 'Missing, invalid or disabled API key: send it in the apikey header',
  auth_04: 'This address is not in the API key allow-list',
  rate_01: 'Too many requests: retry later with exponential backoff',
  server_01: 'Internal error: quote request_id to support',
  not_found: 'No such route',
  invalid_json: 'The body is not valid JSON',
  unsupported_media_type: 'Send application/json or application/x-www-form-urlencoded',
  body_too_large: 'The body is larger than the limit',
  invalid_request: 'The request is not valid',
  bad_url: 'The URL is malformed (invalid percent-encoding)',
  url_too_long: 'A part of the URL is longer than the limit',
  metrics_unauthorized: 'Send Authorization: Bearer <METRICS_TOKEN>',
  // credits
  credit_01: 'available_credits',
};

export function messageFor(code: string): string {
  return messages[code] ?? code;
}

/** Register the messages of a feature's codes (called at module load). */
export function defineMessages(entries: Record<string, string>): void {
  Object.assign(messages, entries);
}
