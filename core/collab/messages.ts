import { z } from "zod";

/**
 * What host and guests say to each other inside sealed frames (crypto.ts), as JSON. The host is
 * authoritative: guests never talk to each other, and everything a guest may do is a request the host
 * checks (a prompt from a guest without the write token is refused by the host, whatever the relay
 * forwards). Events are the session host's events (core/session-host) as they are.
 */
export const COLLAB_VERSION = 1;

export const Participant = z.object({
  peer: z.number().int(),
  name: z.string().max(64),
  canWrite: z.boolean(),
  client: z.enum(["omp", "web"]),
});
export type Participant = z.infer<typeof Participant>;

const ModelState = z.object({ provider: z.string(), id: z.string(), thinking: z.string() });

/** Footer state: sent on join and whenever it changes (debounced). */
export const CollabState = z.object({
  model: ModelState,
  cwd: z.string(),
  streaming: z.boolean(),
  contextTokens: z.number(),
  contextWindow: z.number(),
  cost: z.number(),
  participants: z.array(Participant),
});
export type CollabState = z.infer<typeof CollabState>;

export const HostMessage = z.discriminatedUnion("type", [
  /** The answer to hello: what this guest may do, the conversation so far (the session's messages), and the state. */
  z.object({
    type: z.literal("welcome"),
    version: z.number().int(),
    peer: z.number().int(),
    canWrite: z.boolean(),
    sessionId: z.string(),
    messages: z.array(z.unknown()),
    state: CollabState,
  }),
  /** A live event of the session host (message and tool deltas, tool calls, results, agent_end …). */
  z.object({ type: z.literal("event"), event: z.object({ type: z.string() }).passthrough() }),
  z.object({ type: z.literal("state"), state: CollabState }),
  /** A line for the guest: someone joined, a prompt was refused and why. */
  z.object({ type: z.literal("notice"), text: z.string() }),
  /** The host stopped sharing, or revoked this link (a new room replaces it). */
  z.object({ type: z.literal("bye"), reason: z.enum(["stopped", "revoked"]) }),
]);
export type HostMessage = z.infer<typeof HostMessage>;

export const GuestMessage = z.discriminatedUnion("type", [
  /** First thing a guest says; `writeToken` (base64url) from a full link asks for prompting rights. */
  z.object({ type: z.literal("hello"), version: z.number().int(), name: z.string().min(1).max(64), client: z.enum(["omp", "web"]), writeToken: z.string().max(64).optional() }),
  z.object({ type: z.literal("prompt"), text: z.string().min(1).max(256 * 1024) }),
  z.object({ type: z.literal("abort") }),
]);
export type GuestMessage = z.infer<typeof GuestMessage>;
