import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { ApiError } from '../http/errors.js';
import { listBlocks, removeBlock } from '../features/otp/service.js';
import { actorOf } from './guard.js';
import { decimal } from './schemas.js';

const HIDDEN = { schema: { hide: true } };

const BlockId = z.object({ id: decimal('op_block_missing') });

/** The pumping guard's blocks over the API, as `otp blocks list|remove`. */
export function otpBlockRoutes(scope: FastifyInstance, ctx: AppContext): void {
  scope.get('/otp/blocks', HIDDEN, async () => ({ blocks: await listBlocks(ctx.db.kysely) }));
  scope.delete('/otp/blocks/:id', HIDDEN, async (request) => {
    // An id that is not decimal digits names no block: 404, as an unknown one.
    const parsed = BlockId.safeParse(request.params);
    if (!parsed.success || !(await removeBlock(ctx.db, parsed.data.id, actorOf(request))))
      throw new ApiError(404, 'op_block_missing');
    return { removed: true };
  });
}
