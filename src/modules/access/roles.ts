/** The roles of design.md §6. */
export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);
