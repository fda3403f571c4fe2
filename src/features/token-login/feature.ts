import type { Feature } from '../../feature.js';
import { authLoginPublicRoutes } from './routes.js';

/**
 * POST /auth, the legacy token login (docs/api/compatibility.md): an API key
 * in, a signed token out. The route is public (the key is in the body);
 * the token then authenticates in the deprecated `token` header.
 */
export const authLogin: Feature = { name: 'auth', publicRoutes: authLoginPublicRoutes };
