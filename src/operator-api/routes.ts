import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { accountRoutes } from './accounts-routes.js';
import { catalogRoutes } from './catalog-routes.js';
import { dncRoutes } from './dnc-routes.js';
import { operatorGuard } from './guard.js';
import { operatorOpenApi } from './openapi.js';
import { writeRoutes } from './write-routes.js';

/**
 * The operator API under /operator/v1/: bearer tokens (`mensajero operator-tokens`), JSON only, described by its own
 * OpenAPI 3.1 document at /operator/v1/openapi.json (behind the same guard: a read-only token reads it).
 */
export async function operatorApiRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(
    async (scope) => {
      scope.addHook('onRequest', operatorGuard(ctx));
      scope.get('/openapi.json', { schema: { hide: true } }, async () => operatorOpenApi());
      accountRoutes(scope, ctx);
      catalogRoutes(scope, ctx);
      dncRoutes(scope, ctx);
      writeRoutes(scope, ctx);
    },
    { prefix: '/operator/v1' },
  );
}
