import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ok } from '../../http/errors.js';
import { flag, integer, jsonSchema, optionalText } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { required } from './fields.js';
import { ContactBody } from './schemas.js';
import {
  addContact,
  changeContact,
  contactRecord,
  duplicateContact,
  pollChanges,
  POLLING_ACTIONS,
  removeContact,
} from './service.js';

const DeleteBody = z.object({
  list_key: required('contact_01'),
  number: required('contact_02', 'contact_03'),
  email: optionalText().describe('only the contact with this email is deleted'),
  country_code: optionalText('contact_03'),
  find_country_code: flag(),
});

const DuplicateBody = z.object({
  current_list_key: required('contact_01').describe('source list'),
  new_list_key: required('contact_01').describe('target list'),
  contact_id: integer('contact_16').pipe(
    z.number().int().positive({ error: 'contact_16' }).max(Number.MAX_SAFE_INTEGER, { error: 'contact_16' }),
  ),
});

const PollingParams = z.object({ action: z.string() });
const PollingBody = z.object({
  list_key: optionalText('contact_07').describe('only changes of this list'),
  limit: z
    .preprocess((v) => (v === undefined || v === null || v === '' ? 50 : v), integer('polling_03'))
    .pipe(z.number().min(1, { error: 'polling_03' }).max(100, { error: 'polling_03' }))
    .describe('1 to 100, default 50'),
});

const Contact = z.object({
  id: z.number(),
  list_id: z.number(),
  country_code: z.string(),
  number: z.string(),
  name: z.string(),
  email: z.string(),
  custom_field_1: z.string(),
  custom_field_2: z.string(),
  custom_field_3: z.string(),
  custom_field_4: z.string(),
  birthday_date: z.string(),
  facebook: z.string(),
  twitter: z.string(),
  linkedin: z.string(),
  instagram: z.string(),
  street: z.string(),
  zip: z.string(),
});
const envelope = { success: z.boolean(), message: z.string(), status: z.number(), code: z.string() };
const ContactReply = z.object({ ...envelope, callback: Contact });
const PlainReply = z.object(envelope);
const PollingReply = z.object({
  ...envelope,
  result: z.array(
    z.object({
      id: z.number().describe('change id: stable, for deduplication'),
      action: z.enum(POLLING_ACTIONS),
      change_date: z.string(),
      list_key: z.string(),
      contact: Contact,
    }),
  ),
});

const schema = (summary: string, body: z.ZodType, reply: z.ZodType, extra: Record<string, unknown> = {}) => ({
  tags: ['contacts'],
  summary,
  body: jsonSchema(body),
  response: { 200: jsonSchema(reply) },
  ...extra,
});

export function contactsRoutes(api: FastifyInstance, ctx: AppContext) {
  const db = ctx.db.kysely;

  api.post(
    '/contacts/add',
    { schema: schema('Add or update a contact in a list (upsert by number)', ContactBody, ContactReply) },
    async (request) => {
      const { contact, created } = await addContact(db, request.account.id, parse(ContactBody, request.body));
      return ok(created ? 'contact_13' : 'contact_15', 'contact_added', { callback: contactRecord(contact) });
    },
  );

  api.post(
    '/contacts/update',
    { schema: schema('Update a contact (never creates one)', ContactBody, ContactReply) },
    async (request) => {
      const contact = await changeContact(db, request.account.id, parse(ContactBody, request.body));
      return ok('contact_15', 'contact_updated', { callback: contactRecord(contact) });
    },
  );

  api.post(
    '/contacts/delete',
    { schema: schema('Delete a contact from a list', DeleteBody, PlainReply) },
    async (request) => {
      await removeContact(db, request.account.id, parse(DeleteBody, request.body));
      return ok('contact_12', 'contact_deleted');
    },
  );

  api.post(
    '/contacts/duplicate',
    { schema: schema('Copy a contact into another list', DuplicateBody, ContactReply) },
    async (request) => {
      const copy = await duplicateContact(db, request.account.id, parse(DuplicateBody, request.body));
      return ok('contact_13', 'contact_added', { callback: contactRecord(copy) });
    },
  );

  api.post<{ Params: { action: string } }>(
    '/contacts/polling/:action',
    {
      schema: schema(
        'Latest contact changes of one kind, newest first (polling triggers of automation platforms)',
        PollingBody,
        PollingReply,
        {
          params: {
            type: 'object',
            properties: { action: { type: 'string', enum: [...POLLING_ACTIONS] } },
            required: ['action'],
          },
        },
      ),
    },
    async (request) => {
      const { action } = parse(PollingParams, request.params, 'polling_02');
      const body = parse(PollingBody, request.body);
      return ok('polling_01', 'contact_changes', { result: await pollChanges(db, request.account.id, action, body) });
    },
  );
}
