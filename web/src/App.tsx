import { useMutation, useQueryClient } from '@tanstack/react-query';
import { lazy, Suspense, useEffect, type ComponentType } from 'react';
import { api, ApiError, unwrap } from './api/client';
import { Projects } from './pages/Projects';
import { RedeemLink, SignIn } from './pages/SignIn';
import { Link, match, navigate, usePath } from './router';
import { useLiveEvents } from './live-events';
import { useSession } from './session';

/**
 * The pages past the first (sign-in, the project list) load when first opened: the first load
 * fetches only what it shows (BENCHMARKS.md scenario 5).
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any page's props
function page<M extends Record<K, ComponentType<any>>, K extends keyof M & string>(
  load: () => Promise<M>,
  name: K,
) {
  return lazy(async () => ({ default: (await load())[name] }));
}
const Account = page(() => import('./pages/Account'), 'Account');
const Invite = page(() => import('./pages/Invite'), 'Invite');
const ListingEditor = page(() => import('./pages/ListingEditor'), 'ListingEditor');
const MediaEditor = page(() => import('./pages/MediaEditor'), 'MediaEditor');
const MediaOverview = page(() => import('./pages/MediaOverview'), 'MediaOverview');
const Releases = page(() => import('./pages/Releases'), 'Releases');
const Products = page(() => import('./pages/Products'), 'Products');
const ProductPages = page(() => import('./pages/ProductPages'), 'ProductPages');
const AppEvents = page(() => import('./pages/AppEvents'), 'AppEvents');
const Details = page(() => import('./pages/Details'), 'Details');
const Calendar = page(() => import('./pages/Calendar'), 'Calendar');
const TranslationsOverview = page(() => import('./pages/Translations'), 'TranslationsOverview');
const TranslationLocale = page(() => import('./pages/Translations'), 'TranslationLocale');
const Organization = page(() => import('./pages/Organization'), 'Organization');
const TranslationSettingsPage = page(
  () => import('./pages/organization/TranslationSettings'),
  'TranslationSettingsPage',
);
const WebhooksPage = page(() => import('./pages/organization/Webhooks'), 'WebhooksPage');
const OperationsPage = page(() => import('./pages/project/Operations'), 'OperationsPage');
const Project = page(() => import('./pages/Project'), 'Project');

const loading = <p className="loading">Loading…</p>;

export function App() {
  const path = usePath();
  const signInLink = match('/sign-in/:token', path);
  if (signInLink) return <RedeemLink token={signInLink.token!} />;
  if (path === '/sign-in') return <SignIn />;
  const invite = match('/invite/:inviteId', path);
  if (invite)
    return (
      <Suspense fallback={loading}>
        <Invite inviteId={invite.inviteId!} />
      </Suspense>
    );
  return <SignedIn path={path} />;
}

function SignedIn({ path }: { path: string }) {
  const session = useSession();
  const client = useQueryClient();
  useLiveEvents(session.data?.member.id);
  const signOut = useMutation({
    mutationFn: () => unwrap(api.DELETE('/api/dashboard/session')),
    onSettled: () => {
      client.clear();
      navigate('/sign-in');
    },
  });
  const unauthorized = session.error instanceof ApiError && session.error.status === 401;
  useEffect(() => {
    if (unauthorized) navigate(`/sign-in?next=${encodeURIComponent(path)}`, { replace: true });
  }, [unauthorized, path]);
  if (session.isPending || unauthorized) return <p className="loading">Loading…</p>;
  if (session.error) return <p role="alert">{session.error.message}</p>;
  const me = session.data;

  let page;
  let params: Record<string, string> | null;
  if (path === '/' || path === '/projects') page = <Projects session={me} />;
  else if ((params = match('/projects/:projectId/listings/:locale', path)))
    page = <ListingEditor session={me} projectId={params.projectId!} locale={params.locale!} />;
  else if (
    (params = match('/projects/:projectId/media/:store/:locale', path)) &&
    (params.store === 'appstore' || params.store === 'playstore')
  )
    page = (
      <MediaEditor
        session={me}
        projectId={params.projectId!}
        store={params.store}
        locale={params.locale!}
        key={`${params.store}/${params.locale}`}
      />
    );
  else if (
    (params = match('/projects/:projectId/media/:store', path)) &&
    (params.store === 'appstore' || params.store === 'playstore')
  )
    page = (
      <MediaOverview session={me} projectId={params.projectId!} store={params.store} key={params.store} />
    );
  else if ((params = match('/projects/:projectId/releases', path)))
    page = <Releases session={me} projectId={params.projectId!} />;
  else if ((params = match('/projects/:projectId/products', path)))
    page = <Products session={me} projectId={params.projectId!} />;
  else if ((params = match('/projects/:projectId/product-pages', path)))
    page = <ProductPages session={me} projectId={params.projectId!} />;
  else if ((params = match('/projects/:projectId/app-events', path)))
    page = <AppEvents session={me} projectId={params.projectId!} />;
  else if ((params = match('/projects/:projectId/details', path)))
    page = <Details session={me} projectId={params.projectId!} />;
  else if ((params = match('/projects/:projectId/calendar', path)))
    page = <Calendar session={me} projectId={params.projectId!} />;
  else if ((params = match('/projects/:projectId/translations', path)))
    page = <TranslationsOverview session={me} projectId={params.projectId!} />;
  else if ((params = match('/projects/:projectId/translations/:locale', path)))
    page = (
      <TranslationLocale
        session={me}
        projectId={params.projectId!}
        locale={params.locale!}
        key={params.locale}
      />
    );
  else if ((params = match('/projects/:projectId/operations', path)))
    page = <OperationsPage projectId={params.projectId!} />;
  else if ((params = match('/projects/:projectId', path)))
    page = <Project session={me} projectId={params.projectId!} />;
  else if (path === '/organization') page = <Organization session={me} />;
  else if (path === '/organization/webhooks') page = <WebhooksPage />;
  else if (path === '/organization/translation') page = <TranslationSettingsPage session={me} />;
  else if (path === '/account') page = <Account session={me} />;
  else
    page = (
      <>
        <h1>Page not found</h1>
        <p>
          <Link href="/projects">Back to the projects</Link>
        </p>
      </>
    );

  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header>
        <span className="brand">appmeta</span>
        <nav aria-label="Main">
          <Link
            href="/projects"
            aria-current={path.startsWith('/projects') || path === '/' ? 'page' : undefined}
          >
            Projects
          </Link>
          <Link href="/organization" aria-current={path.startsWith('/organization') ? 'page' : undefined}>
            Organization
          </Link>
          <Link href="/account" aria-current={path === '/account' ? 'page' : undefined}>
            Account
          </Link>
        </nav>
        <span className="who">
          {me.member.name} · {me.organization.name} · {me.role}
        </span>
        <button type="button" onClick={() => signOut.mutate()} disabled={signOut.isPending}>
          Sign out
        </button>
      </header>
      <main id="main">
        <Suspense fallback={loading}>{page}</Suspense>
      </main>
    </>
  );
}
