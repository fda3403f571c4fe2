import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ok } from '../../http/errors.js';
import { jsonSchema, optionalText, text } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { Envelope, name, staffId, tenDigits, toolCopy } from '../staff/fields.js';
import { enroll, listMembers, listPrograms, redeem, requireLoyalty, sale, type LoyaltyMember } from './service.js';

const loyaltyKey = text('loyalty_02').pipe(z.string().trim().min(1, { error: 'loyalty_02' }));

/** YYYY-MM-DD of a real date; anything else is ignored, as the contacts' birthday_date is. */
const birthdate = z
  .unknown()
  .transform((v) => {
    if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) return undefined;
    const d = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v ? v : undefined;
  })
  .optional()
  .meta({ type: 'string', format: 'date' });

const StaffActionBody = z.object({
  loyalty_key: loyaltyKey,
  phone: tenDigits('loyalty_04'),
  usertool_id: staffId('loyalty_06'),
});
const ContactAddBody = z.object({
  loyalty_key: loyaltyKey,
  phone: tenDigits('loyalty_04'),
  customer_name: name('loyalty_05'),
  usertool_id: staffId('loyalty_06'),
  birthdate: birthdate.describe('optional YYYY-MM-DD; an invalid date is ignored'),
});
const ContactGetBody = z.object({
  loyalty_key: loyaltyKey,
  phone: optionalText('loyalty_04').pipe(
    z
      .string()
      .trim()
      .regex(/^\d{10}$/, { error: 'loyalty_04' })
      .optional(),
  ),
});

const LoyaltyItem = z.object({
  loyalty_name: z.string(),
  loyalty_key: z.string(),
  loyalty_app_client: z.string(),
  loyalty_plan_type: z.literal('stamps'),
  loyalty_stamps_required: z.number().int(),
});
const LoyaltyContact = z.object({
  contact_name: z.string(),
  contact_phone: z.string(),
  contact_birthdate: z.string().describe("YYYY-MM-DD, or '' when unknown"),
  contact_total_loyalty_completes: z.number().int().describe('cards completed ever'),
  contact_current_redeem: z.number().int().describe('rewards earned and not yet redeemed'),
  contact_current_stamps: z.number().int().describe('stamps on the current card'),
});
const CardReply = z.object({
  ...Envelope,
  stamps: z.number().int().describe('stamps on the current card after this request'),
  stamps_required: z.number().int(),
  card_completed: z.boolean(),
  contact_total_loyalty_completes: z.number().int(),
  contact_current_redeem: z.number().int(),
});

const toContact = (m: LoyaltyMember): z.infer<typeof LoyaltyContact> => ({
  contact_name: m.name,
  contact_phone: m.phone,
  contact_birthdate: m.birthdate ?? '',
  contact_total_loyalty_completes: m.completes,
  contact_current_redeem: m.rewards_available,
  contact_current_stamps: m.stamps,
});

const card = (m: LoyaltyMember, required: number, completed: boolean) => ({
  stamps: m.stamps,
  stamps_required: required,
  card_completed: completed,
  contact_total_loyalty_completes: m.completes,
  contact_current_redeem: m.rewards_available,
});

const tags = ['loyalty'];

export function loyaltyRoutes(api: FastifyInstance, ctx: AppContext) {
  programRoutes(api, ctx);
  contactRoutes(api, ctx);
  pointRoutes(api, ctx);
}

/** POST /loyalty/get: the account's loyalty programs. */
function programRoutes(api: FastifyInstance, ctx: AppContext): void {
  api.post(
    '/loyalty/get',
    {
      schema: {
        tags,
        summary: 'List the loyalty programs of the account',
        response: {
          200: jsonSchema(
            z.object({ ...Envelope, result: z.array(LoyaltyItem), loyalty_cards: toolCopy(LoyaltyItem) }),
          ),
        },
      },
    },
    async (request) => {
      const programs = (await listPrograms(ctx.db.kysely, request.account.id)).map((p) => ({
        loyalty_name: p.name,
        loyalty_key: p.loyalty_key,
        loyalty_app_client: p.app_client,
        loyalty_plan_type: 'stamps' as const,
        loyalty_stamps_required: p.stamps_required,
      }));
      return ok('loyalty_get_01', 'loyalty_programs', { result: programs, loyalty_cards: programs });
    },
  );
}

/** POST /loyalty/contact/add and /loyalty/contact/get: enrolling and reading contacts. */
function contactRoutes(api: FastifyInstance, ctx: AppContext): void {
  api.post(
    '/loyalty/contact/add',
    {
      schema: {
        tags,
        summary: 'Enroll a contact in a loyalty program (empty card), by an active staff user',
        body: jsonSchema(ContactAddBody),
        response: { 200: jsonSchema(CardReply) },
      },
    },
    async (request) => {
      const input = parse(ContactAddBody, request.body);
      const { program, member } = await enroll(ctx, request.account.id, input);
      return ok('loyalty_sale_01', 'contact_added', card(member, program.stamps_required, false));
    },
  );

  api.post(
    '/loyalty/contact/get',
    {
      schema: {
        tags,
        summary: "The program's contacts and their cards; phone filters to one",
        body: jsonSchema(ContactGetBody),
        response: {
          200: jsonSchema(
            z.object({ ...Envelope, result: z.array(LoyaltyContact), contacts: toolCopy(LoyaltyContact) }),
          ),
        },
      },
    },
    async (request) => {
      const input = parse(ContactGetBody, request.body);
      const program = await requireLoyalty(ctx.db.kysely, request.account.id, input.loyalty_key);
      const contacts = (await listMembers(ctx.db.kysely, program.id, input.phone)).map(toContact);
      return ok('loyalty_contact_get_01', 'loyalty_contacts', { result: contacts, contacts });
    },
  );
}

/** POST /loyalty/sale and /loyalty/redeem: points earned and spent. */
function pointRoutes(api: FastifyInstance, ctx: AppContext): void {
  api.post(
    '/loyalty/sale',
    {
      schema: {
        tags,
        summary: 'One stamp by a staff user; the stamp that reaches the count completes the card and earns a reward',
        body: jsonSchema(StaffActionBody),
        response: { 200: jsonSchema(CardReply) },
      },
    },
    async (request) => {
      const input = parse(StaffActionBody, request.body);
      const { program, after, completed } = await sale(ctx, request.account.id, input);
      return ok(
        'loyalty_sale_01',
        completed ? 'card_completed' : 'stamp_added',
        card(after, program.stamps_required, completed),
      );
    },
  );

  api.post(
    '/loyalty/redeem',
    {
      schema: {
        tags,
        summary: 'Redeem one earned reward (not in the spec): contact_current_redeem decreases by one',
        body: jsonSchema(StaffActionBody),
        response: { 200: jsonSchema(CardReply) },
      },
    },
    async (request) => {
      const input = parse(StaffActionBody, request.body);
      const { program, after } = await redeem(ctx, request.account.id, input);
      return ok('loyalty_redeem_01', 'reward_redeemed', card(after, program.stamps_required, false));
    },
  );
}
