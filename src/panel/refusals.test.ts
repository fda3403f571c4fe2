import { describe, expect, it } from 'vitest';
import type { Account } from '../accounts/index.js';
import { kindSettings } from '../carriers/connector-admin.js';
import { qualityRequest } from '../carriers/quality-commands.js';
import { addRoute } from '../carriers/route-admin.js';
import { CliError } from '../cli/runner.js';
import { applyAccountSettings } from '../features/accounts/set-settings.js';
import { abuseChanges } from '../features/accounts/cli-abuse-options.js';
import { dailySpendOption, number, priceOptions, settingChanges } from '../features/accounts/cli-options.js';
import { optoutChanges } from '../features/accounts/cli-optout-options.js';
import { smsTextChanges } from '../features/accounts/cli-sms-text-options.js';
import { trafficChanges } from '../features/accounts/cli-traffic-options.js';
import { translator } from './i18n.js';
import { refusalText } from './refusals.js';
import type { View } from './view.js';

const view = (lang: 'es' | 'en') => ({ t: translator(lang), lang }) as View;
const top = { parent_id: null } as Account;
const sub = { parent_id: 1 } as Account;

/** The CliError a service throws for a refused value. */
function refusalOf(work: () => unknown): CliError {
  try {
    work();
  } catch (err) {
    if (err instanceof CliError) return err;
    throw err;
  }
  throw new Error('nothing was refused');
}

/** Every refusal of a field the panel edits (account settings, a carrier's settings, a route), as its service throws it. */
const REFUSED: Array<[string, () => unknown]> = [
  ['number', () => number('muchos')],
  ['price', () => priceOptions({ priceSms: -1 })],
  ['credit value', () => settingChanges({ creditValue: 'mucho' })],
  ['low balance', () => settingChanges({ lowBalance: 'x' })],
  ['allow ip', () => settingChanges({ allowIp: '10.0.0.0/8,casa' })],
  ['webhook method', () => settingChanges({ webhookMethod: 'PUT' })],
  ['panel allow ip', () => settingChanges({ panelAllowIp: 'yes' })],
  ['rate limit', () => settingChanges({ rateLimit: 0.5 })],
  ['max subaccounts', () => settingChanges({ maxSubaccounts: '-1' })],
  ['daily spend', () => dailySpendOption({ dailySpend: '0' })],
  ['long sms', () => smsTextChanges({ longSms: 'sí' })],
  ['unicode', () => smsTextChanges({ unicode: 'sí' })],
  ['countries', () => abuseChanges({ countries: 'mx' })],
  ['senders', () => abuseChanges({ senders: 'todos' })],
  ['max per number hour', () => abuseChanges({ maxPerNumberHour: '0' })],
  ['max same text hour', () => abuseChanges({ maxSameTextHour: '0' })],
  ['traffic on a sub-account', () => trafficChanges({ trafficClass: 'bulk' }, sub)],
  ['traffic class', () => trafficChanges({ trafficClass: 'rápida' }, top)],
  ['traffic weight', () => trafficChanges({ trafficWeight: '0' }, top)],
  ['validity minutes', () => trafficChanges({ validityMinutes: '0' }, top)],
  ['opt-outs on a sub-account', () => optoutChanges({ optoutExemptOtp: 'on' }, sub)],
  ['opt-out exempt otp', () => optoutChanges({ optoutExemptOtp: 'sí' }, top)],
  ['opt-out confirmation', () => optoutChanges({ optoutConfirmation: 'a\u0007b' }, top)],
  ['carrier setting', () => kindSettings('smpp', { host: 'h', port: 99999, system_id: 's' })],
  ['min delivery rate', () => qualityRequest({ minDeliveryRate: '2' })],
  ['quality window', () => qualityRequest({ qualityWindowMinutes: '0' })],
  ['quality min messages', () => qualityRequest({ qualityMinMessages: '0' })],
];

/** A route refused before any carrier is looked up, a setting before any account is read (the context is never reached). */
const route = (r: Partial<Parameters<typeof addRoute>[1]>) =>
  addRoute({} as never, { channel: 'sms', prefix: '52', carriers: ['a'], accountId: 0, account: null, ...r });

const ASYNC: Array<[string, () => Promise<unknown>]> = [
  ['daily spend on a sub-account', () => applyAccountSettings({} as never, sub, { dailySpend: '5' })],
  ['route channel', () => route({ channel: 'fax' })],
  ['route prefix', () => route({ prefix: '+52' })],
  ['no carrier', () => route({ carriers: [' '] })],
  ['carrier twice', () => route({ carriers: ['a', 'a'] })],
  ['strategy', () => route({ strategy: 'random' })],
  ['weights without weighted', () => route({ weights: ['1'] })],
  ['weights count', () => route({ strategy: 'weighted', weights: ['1', '2'] })],
  ['weights whole', () => route({ strategy: 'weighted', weights: ['uno'] })],
  ['weights zero', () => route({ strategy: 'weighted', weights: ['0'] })],
];

const generic = view('es').t('refused_other');

/** The refusal in Spanish has its own sentence and none of the service's English line. */
function expectSpanish(err: CliError) {
  const es = refusalText(view('es'), err);
  expect(es).not.toBe(generic);
  expect(es).not.toContain(err.message);
  expect(es).not.toMatch(/--|\b(is|are|or|the|number|whole)\b/);
  expect(refusalText(view('en'), err)).not.toBe(view('en').t('refused_other'));
}

describe('panel: the services’ refusals in the panel’s words', () => {
  it.each(REFUSED)('says the refused %s in Spanish', (_name, work) => expectSpanish(refusalOf(work)));

  it.each(ASYNC)('says the refused %s in Spanish', async (_name, work) => {
    const err = await work().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(CliError);
    expectSpanish(err as CliError);
  });

  it('names the value and the setting in the page’s words', () => {
    expect(
      refusalText(
        view('es'),
        refusalOf(() => number('muchos')),
      ),
    ).toBe('«muchos» no es un número.');
    expect(
      refusalText(
        view('es'),
        refusalOf(() => priceOptions({ priceVoice: -1 })),
      ),
    ).toContain('por voz');
    expect(
      refusalText(
        view('es'),
        refusalOf(() => kindSettings('smpp', { host: 'h', port: 0, system_id: 's' })),
      ),
    ).toBe('el valor de «Puerto» no es válido.');
    expect(
      refusalText(
        view('es'),
        refusalOf(() => abuseChanges({ maxPerNumberHour: '0' })),
      ),
    ).toContain('1 a 1,000,000');
  });

  it('falls back to a generic sentence, never the English line on a Spanish page', () => {
    const plain = new CliError('something the panel has no words for');
    const unknown = new CliError('a refusal of tomorrow', { code: 'not_yet_a_word' });
    for (const err of [plain, unknown, new Error('boom'), undefined])
      expect(refusalText(view('es'), err)).toBe(generic);
    expect(refusalText(view('en'), plain)).toBe('something the panel has no words for');
  });
});
