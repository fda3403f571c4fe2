import type { FastifyInstance } from 'fastify';
import { changeSettings, OtpSettingsError, settingsChanges } from '../../../features/otp/settings.js';
import { accountOf, field, refuse, registerAction, type Section, type Shared } from '../../view.js';

/** The OTP abuse protection the API applies: allowed countries, a per-number hourly cap. */
export function registerOtpActions(scope: FastifyInstance, shared: Shared, section: Section): void {
  const { ctx } = shared;
  registerAction(scope, shared, section, 'settings', async (_request, v, body) => {
    let changes;
    try {
      changes = settingsChanges(field(body, 'countries') || 'any', field(body, 'max_per_number_hour') || 'none');
    } catch (err) {
      if (err instanceof OtpSettingsError) throw refuse(400, 'otp_settings_invalid');
      throw err;
    }
    await changeSettings(ctx, accountOf(v).id, changes);
    return { done: 'otp_saved' };
  });
}
