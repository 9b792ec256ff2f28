const GiB = 1024 ** 3;

/** Plans of design.md §8, with media storage of §12. `null` means unlimited. */
export const PLANS = {
  free: { requestsPerMinute: 100, projects: 3, seats: 5, mediaBytes: GiB },
  pro: { requestsPerMinute: 1_000, projects: 50, seats: 50, mediaBytes: 50 * GiB },
  enterprise: { requestsPerMinute: 10_000, projects: null, seats: null, mediaBytes: null },
} as const satisfies Record<
  string,
  { requestsPerMinute: number; projects: number | null; seats: number | null; mediaBytes: number | null }
>;

export type Plan = keyof typeof PLANS;
export const PLAN_NAMES = ['free', 'pro', 'enterprise'] as const satisfies readonly Plan[];
export const isPlan = (value: string): value is Plan => Object.hasOwn(PLANS, value);

/** Rate of callers without a valid key (per client IP): the free plan's, so key guessing is throttled. */
export const ANONYMOUS_REQUESTS_PER_MINUTE = PLANS.free.requestsPerMinute;
