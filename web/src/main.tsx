import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ApiError } from './api/client';
import { App } from './App';
import { navigate } from './router';
import './styles.css';

const PUBLIC_PAGES = /^\/(sign-in|invite)(\/|$)/;

const queryClient = new QueryClient({
  queryCache: new QueryCache({
    // A session that ended (signed out elsewhere, role changed, idle) sends the person to sign in.
    onError: (error) => {
      if (error instanceof ApiError && error.status === 401 && !PUBLIC_PAGES.test(location.pathname)) {
        navigate(`/sign-in?next=${encodeURIComponent(location.pathname)}`, { replace: true });
      }
    },
  }),
  defaultOptions: {
    queries: { retry: (count, error) => !(error instanceof ApiError) && count < 2, staleTime: 5_000 },
  },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={queryClient}>
      <App />
    </QueryClientProvider>
  </StrictMode>,
);
