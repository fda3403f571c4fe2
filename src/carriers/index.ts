// The carrier layer's public surface for front ends (panel pages, commands): routes and connectors.
export { listPublicRoutes, type PublicRoute } from './store.js';
export { SIMULATOR } from './store.js';
export {
  deleteCarrier,
  deleteRoute,
  deleteRouteById,
  findCarrier,
  insertCarrier,
  listCarriers,
  listCosts,
  listRejections,
  listRoutes,
  listUnmatchedReplies,
  publicCarrier,
  replaceRoute,
  setCarrierEnabled,
  updateCarrierSettings,
} from './store.js';
