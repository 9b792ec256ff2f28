/**
 * What a generated client knows of errors: each status an operation answers is its own response,
 * so a 429 (with `Retry-After` and the rate-limit headers) and a 404 are told apart in the types
 * and at run time. test/http/typed-client.test.ts generates `./appmeta-api.js` beside a copy of
 * this file, compiles it strictly and runs it.
 *
 * Outside tsconfig and ESLint on purpose: the types it imports exist only while the test runs.
 */
import createClient from 'openapi-fetch';
import type { paths } from './appmeta-api.js';

type ProjectResponses = paths['/api/v1/projects/{projectId}']['get']['responses'];
/** The headers a response names (openapi-typescript adds an index signature for the rest). */
type Named<T> = { [K in keyof T as string extends K ? never : K]: T[K] };
type Has<T, K extends string> = K extends keyof T ? true : false;

// Compiled, these lines are the assertions: a wrong document fails the build.
const retryAfter: Named<ProjectResponses[429]['headers']>['Retry-After'] = 30;
const tooManyHasRetryAfter: Has<Named<ProjectResponses[429]['headers']>, 'Retry-After'> = true;
const notFoundHasRetryAfter: Has<Named<ProjectResponses[404]['headers']>, 'Retry-After'> = false;
const remaining: Named<ProjectResponses[200]['headers']>['X-RateLimit-Remaining'] = 0;
const notFoundCode: ProjectResponses[404]['content']['application/json']['error']['code'] = 'NOT_FOUND';
export const typeChecks = {
  retryAfter,
  tooManyHasRetryAfter,
  notFoundHasRetryAfter,
  remaining,
  notFoundCode,
};

/** A 404, then requests until the budget is spent: how the client sees each. */
export async function statusCalls(baseUrl: string, key: string) {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${key}` } });
  const missing = await client.GET('/api/v1/projects/{projectId}', {
    params: { path: { projectId: 'proj_00000000000000000000000000' } },
  });
  const notFound = {
    status: missing.response.status,
    code: missing.error?.error.code,
    retryAfter: missing.response.headers.get('Retry-After'),
  };
  for (let i = 0; i < 1000; i++) {
    const answer = await client.GET('/api/v1/projects');
    if (answer.response.status === 429) {
      return {
        notFound,
        tooMany: {
          status: answer.response.status,
          code: answer.error?.error.code,
          retryAfter: Number(answer.response.headers.get('Retry-After')),
          remaining: Number(answer.response.headers.get('X-RateLimit-Remaining')),
        },
      };
    }
  }
  throw new Error('the budget was never spent');
}
