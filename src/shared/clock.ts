/** Time source, injected so that tests can move time (invite expiry, rate-limit windows). */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
