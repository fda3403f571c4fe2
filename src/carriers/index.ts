// The carrier layer's public surface for front ends (panel pages): what they read of routes and connectors.
export { listPublicRoutes, type PublicRoute } from './store.js';
export { SIMULATOR } from './store.js';
