import type { AppContext } from '../../context.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ok } from '../../http/errors.js';
import { jsonSchema, text } from '../../http/fields.js';
import { parse } from '../../http/validate.js';
import { passwordEndpointLimit } from '../../http/rate-limit.js';
import { Envelope, name, tenDigits } from './fields.js';
import { addStaff, disableStaff, listStaff, type StaffUser } from './service.js';

const AddBody = z.object({
  type: text('toolusers_02').pipe(
    z
      .string()
      .trim()
      .toLowerCase()
      .pipe(z.enum(['cajero', 'gerente'], { error: 'toolusers_02' })),
  ),
  employee_name: name('toolusers_03'),
  business_name: name('toolusers_04'),
  number: tenDigits('toolusers_05'),
  password: text('toolusers_06').pipe(z.string().min(1, { error: 'toolusers_06' }).max(50, { error: 'toolusers_06' })),
});

const DisableBody = z.object({ number: tenDigits('toolusers_05') });

const ToolUser = z.object({
  usertool_id: z.number().int(),
  usertool_name: z.string(),
  usertool_number: z.string(),
  usertool_branch: z.string().describe('the business_name given at /employee/add'),
  usertool_type: z.enum(['cajero', 'gerente']),
  usertool_status: z.enum(['active', 'disabled']),
});

const toItem = (s: StaffUser): z.infer<typeof ToolUser> => ({
  usertool_id: s.id,
  usertool_name: s.name,
  usertool_number: s.number,
  usertool_branch: s.business_name,
  usertool_type: s.type,
  usertool_status: s.status,
});

export function staffRoutes(api: FastifyInstance, ctx: AppContext) {
  api.post(
    '/toolusers/get',
    {
      schema: {
        tags: ['staff'],
        summary: 'List the staff users (tool users) of the account, active and disabled',
        response: { 200: jsonSchema(z.object({ ...Envelope, result: z.array(ToolUser) })) },
      },
    },
    async (request) =>
      ok('tool_users_01', 'tool_users', { result: (await listStaff(ctx.db.kysely, request.account.id)).map(toItem) }),
  );

  api.post(
    '/employee/add',
    {
      schema: {
        tags: ['staff'],
        summary:
          'Add a staff user (cajero or gerente); number, name and password are unique among the active staff of the account',
        body: jsonSchema(AddBody),
        response: { 200: jsonSchema(z.object({ ...Envelope, collaboratorId: z.number().int() })) },
      },
    },
    async (request) => {
      const input = parse(AddBody, request.body);
      await passwordEndpointLimit(ctx).consume(request.account.parent_id ?? request.account.id);
      const user = await addStaff(ctx, request.account.id, input);
      return ok('toolusers_01', 'partner_created_successfully', { collaboratorId: user.id });
    },
  );

  api.post(
    '/employee/disable',
    {
      schema: {
        tags: ['staff'],
        summary: 'Disable the active staff user with this number',
        body: jsonSchema(DisableBody),
        response: { 200: jsonSchema(z.object(Envelope)) },
      },
    },
    async (request) => {
      const { number } = parse(DisableBody, request.body);
      await disableStaff(ctx, request.account.id, number);
      return ok('toolusers_01', 'partner_disabled');
    },
  );
}
