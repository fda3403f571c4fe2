/** `npm run chaos` sets CHAOS_FULL=1: each scenario runs at its full size; `npm test` runs the reduced one. */
export const chaosFull = process.env.CHAOS_FULL === '1';

export const chaosScale = (reduced: number, full: number): number => (chaosFull ? full : reduced);
