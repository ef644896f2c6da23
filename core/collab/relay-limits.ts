/**
 * What a relay lets one room and one connection cost. Every limit refuses with a reason the other
 * side (and the relay's log) can read: an HTTP status before the upgrade, a close code after it.
 */
export interface RelayLimits {
  /** Rooms live at once (a room lives while its host or a guest is connected). */
  maxRooms: number;
  /** Guests in one room. */
  maxGuests: number;
  /** Bytes waiting for one slow reader; past it the reader is dropped rather than the buffer grown. */
  maxBufferedBytes: number;
  /** Messages per second a host may send (bursts of twice as many pass). */
  hostRate: number;
  /** Messages per second a guest may send: a guest says hello, prompts and aborts. */
  guestRate: number;
  /** A connection that answers no ping for this long is closed (Bun's WebSocket idle timeout). */
  idleSeconds: number;
  /** How long guests wait for a host that left (or has not come yet) before they are closed. */
  hostWaitMs: number;
}

export const DEFAULT_LIMITS: RelayLimits = {
  maxRooms: 1000,
  maxGuests: 32,
  maxBufferedBytes: 16 * 1024 * 1024,
  hostRate: 500,
  guestRate: 20,
  idleSeconds: 120,
  hostWaitMs: 10 * 60_000,
};

/** Close codes after the upgrade (4xxx are the application's own). */
export const CLOSE = {
  tooBig: 1009,
  textRefused: 1003,
  badFrame: 1002,
  goingAway: 1001,
  tooFast: 4008,
  tooSlow: 4013,
  hostGone: 4004,
  /** The room's own host connected again (its old connection had died unseen). */
  replaced: 4009,
} as const;

/** A token bucket per connection: `rate` a second, bursts up to twice that. */
export class RateBucket {
  private tokens: number;
  private last: number;

  constructor(
    private readonly rate: number,
    /** Milliseconds; a test passes its own clock. */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = rate * 2;
    this.last = now();
  }

  take(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.rate * 2, this.tokens + ((now - this.last) / 1000) * this.rate);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
