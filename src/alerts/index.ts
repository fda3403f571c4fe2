// The alerts module's public surface for front ends (the operator panel, the CLI).
export { listEpisodes, RECENT_DAYS, type ListedEpisode } from './store.js';
