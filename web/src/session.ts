import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, unwrap } from './api/client';
import { keys } from './api/keys';

/** Who is signed in (member, organization, role); an ApiError 401 when nobody is. */
export function useSession() {
  return useQuery({
    queryKey: keys.session(),
    queryFn: () => unwrap(api.GET('/api/dashboard/session')),
    retry: false,
  });
}

export type Session = NonNullable<ReturnType<typeof useSession>['data']>;

/**
 * After a sign-in: forget everything cached for whoever was signed in before — but `keep`, a
 * query the sign-in used up (an accepted invite answers 409 when asked for again).
 */
export function useSignedIn(keep?: readonly unknown[]) {
  const client = useQueryClient();
  const kept = JSON.stringify(keep);
  return () => client.resetQueries({ predicate: (query) => JSON.stringify(query.queryKey) !== kept });
}

/** Whether the member's scope (design.md §16) covers a locale: admins' always does. */
export const coversLocale = (session: Session | undefined, locale: string) => {
  const locales = session?.member.access.locales;
  return session?.role === 'admin' || locales === 'all' || (locales?.includes(locale) ?? false);
};

/** Whether the signed-in member may change things (of `locale`, when one is named). */
export const canEdit = (session: Session | undefined, locale?: string) =>
  (session?.role === 'admin' || session?.role === 'member') &&
  (locale === undefined || coversLocale(session, locale));

/** Why a member who may edit sees a locale read-only: their scope leaves it out. */
export const scopeNote = (session: Session | undefined, locale: string): string | null =>
  canEdit(session) && !coversLocale(session, locale)
    ? `Read-only for you: your access covers ${(session?.member.access.locales as string[]).join(', ')}, not ${locale}. An admin can widen it.`
    : null;
export const isAdmin = (session: Session | undefined) => session?.role === 'admin';

/** What a page about one locale of a project is given (the listing editor, a translation locale). */
export interface LocalePageProps {
  session: Session;
  projectId: string;
  locale: string;
}
