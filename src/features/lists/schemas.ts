import { z } from 'zod';
import { freeText, required } from '../contacts/fields.js';

export const agendaName = () => required('agenda_02').pipe(z.string().max(100, { error: 'agenda_03' }));
const label = () => freeText(100, 'agenda_05');

export const AddBody = z.object({
  agenda_name: agendaName().describe('unique among the account lists, case-insensitive; at most 100 characters'),
  agenda_description: freeText(255, 'agenda_05'),
  custom_field_1: label(),
  custom_field_2: label(),
  custom_field_3: label(),
  custom_field_4: label(),
});
