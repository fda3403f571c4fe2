import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ok } from '../../http/errors.js';
import { integer, jsonSchema } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { freeText, required } from '../contacts/fields.js';
import { AddBody, agendaName } from './schemas.js';
import { addList, allLists, changeListName, deleteList, findLists, listToRead, MAX_PAGE } from './service.js';
import { contactsJson } from './stream.js';

const ListKeyBody = z.object({ list_key: required('contact_01') });
const ChangeNameBody = z.object({ list_key: required('contact_01'), agenda_name: agendaName() });

const paging = (fallback: number, max: number) =>
  z
    .preprocess((v) => (v === undefined || v === '' ? fallback : v), integer('contactlist_02'))
    .pipe(z.number().min(1, { error: 'contactlist_02' }).max(max, { error: 'contactlist_02' }));
const FindQuery = z.object({
  query: freeText(100, 'contactlist_01').describe('text searched in list names, at most 100 characters'),
  page: paging(1, MAX_PAGE).describe('page number, from 1'),
  limit: paging(20, 100).describe('lists per page, 1 to 100, default 20'),
});

const envelope = { success: z.boolean(), message: z.string(), status: z.number(), code: z.string() };
const PlainReply = z.object(envelope);
const ListRecord = z.object({
  agenda_name: z.string(),
  agenda_description: z.string(),
  agenda_creation_date: z.string(),
  list_key: z.string(),
  custom_field_1: z.string(),
  custom_field_2: z.string(),
  custom_field_3: z.string(),
  custom_field_4: z.string(),
  linked_tool: z.string().describe("'' or the program that owns the list: wallet, loyalty"),
});
const ContactEntry = z.object({
  contact_id: z.number(),
  contact_name: z.string(),
  contact_number: z.string(),
  contact_email: z.string(),
  contact_creation_date: z.string(),
});
const FindReply = z.object({
  ...envelope,
  result: z.array(z.object({ id: z.string().describe('the list_key'), name: z.string(), list_key: z.string() })),
  total_count: z.number(),
  page: z.number(),
  total_pages: z.number(),
  limit: z.number(),
  has_more: z.boolean(),
  next_page: z.number().nullable(),
});

const schema = (summary: string, body: z.ZodType, reply: z.ZodType) => ({
  tags: ['contact lists'],
  summary,
  body: jsonSchema(body),
  response: { 200: jsonSchema(reply) },
});

export function listsRoutes(api: FastifyInstance, ctx: AppContext) {
  const db = ctx.db.kysely;

  api.post(
    '/agendas/add',
    { schema: schema('Create a contact list', AddBody, z.object({ ...envelope, list_key: z.string() })) },
    async (request) => {
      const list = await addList(db, request.account.id, parse(AddBody, request.body));
      return ok('agenda_01', 'phoneBookSavedSuccess', { list_key: list.list_key });
    },
  );

  api.post(
    '/agendas/get',
    {
      schema: schema(
        'All contact lists, ordered by name',
        z.object({}),
        z.object({ ...envelope, result: z.array(ListRecord) }),
      ),
    },
    async (request) => ok('agendas_01', 'agendas_found', { result: await allLists(db, request.account.id) }),
  );

  api.post(
    '/agendas/change_name',
    { schema: schema('Rename a contact list', ChangeNameBody, PlainReply) },
    async (request) => {
      const { list_key, agenda_name } = parse(ChangeNameBody, request.body);
      await changeListName(db, request.account.id, list_key, agenda_name);
      return ok('change_name_01', 'phonebook_name_updated');
    },
  );

  api.post(
    '/agendas/get_contacts',
    {
      schema: schema(
        "A list's contacts (streamed: any size)",
        ListKeyBody,
        z.object({ ...envelope, result: z.array(ContactEntry) }),
      ),
    },
    async (request, reply) => {
      const list = await listToRead(db, request.account.id, parse(ListKeyBody, request.body).list_key);
      return reply
        .type('application/json; charset=utf-8')
        .send(contactsJson(db, list.id, ok('get_contacts_01', 'contacts_found')));
    },
  );

  api.post(
    '/agendas/delete',
    { schema: schema('Delete a contact list and all its contacts', ListKeyBody, PlainReply) },
    async (request) => {
      await deleteList(db, request.account.id, parse(ListKeyBody, request.body).list_key);
      return ok('delete_agenda_01', 'phonebook_deleted');
    },
  );

  api.get(
    '/contactlist/find',
    {
      schema: {
        tags: ['contact lists'],
        summary: 'Search lists by name, with paging',
        querystring: jsonSchema(FindQuery),
        response: { 200: jsonSchema(FindReply) },
      },
    },
    async (request) => {
      const { query, page, limit } = parse(FindQuery, request.query);
      return ok('contactlist_03', 'lists_found', await findLists(db, request.account.id, query ?? '', page, limit));
    },
  );
}
