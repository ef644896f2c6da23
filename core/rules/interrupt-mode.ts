/** Which matches of a stream rule cut the stream at once (the original's `interruptMode`). */
export const INTERRUPT_MODES = ["always", "prose-only", "tool-only", "never"] as const;
export type InterruptMode = (typeof INTERRUPT_MODES)[number];
