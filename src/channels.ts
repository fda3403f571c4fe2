/**
 * The channels of the pipeline, written once: every list, enum and type of channels (routes, prices, carriers, the
 * API's and operator API's schemas) is derived from it. RCS is SMS's richer sibling with its own price. The channels
 * an OTP code can go by (sms, chatapp, voice) are another list, and migrations keep the values they were written with.
 */
export const CHANNELS = ['sms', 'rcs', 'chatapp', 'voice'] as const;

export type Channel = (typeof CHANNELS)[number];
