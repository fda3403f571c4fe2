import { z } from 'zod';
import { flag, optionalText } from '../../http/fields.js';
import { email, freeText, lenientText, required } from './fields.js';

const OTHER_FIELD_MAX = 255;

export const ContactBody = z.object({
  list_key: required('contact_01'),
  number: required('contact_02', 'contact_03').describe(
    '10 digits without the country code; with find_country_code 1 it may carry it',
  ),
  name: freeText(100, 'contact_04'),
  email: email(),
  country_code: optionalText('contact_03').describe("default '52'"),
  find_country_code: flag(),
  birthday_date: lenientText().describe('YYYY-MM-DD; another format is ignored'),
  custom_field_1: freeText(OTHER_FIELD_MAX),
  custom_field_2: freeText(OTHER_FIELD_MAX),
  custom_field_3: freeText(OTHER_FIELD_MAX),
  custom_field_4: freeText(OTHER_FIELD_MAX),
  facebook: freeText(OTHER_FIELD_MAX),
  twitter: freeText(OTHER_FIELD_MAX),
  linkedin: freeText(OTHER_FIELD_MAX),
  instagram: freeText(OTHER_FIELD_MAX),
  street: freeText(OTHER_FIELD_MAX),
  zip: freeText(OTHER_FIELD_MAX),
});
