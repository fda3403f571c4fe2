// The carrier layer's public surface for front ends (panel pages, commands) and features: routes, connectors, rate counters.
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
/** Counters of carrier_rate the SMPP server's customers share (features/smpp-users/throughput.ts). */
export { addToRate, forgetRate, pruneRateSlots } from './coordination-store.js';
