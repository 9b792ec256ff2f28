/**
 * The CLI as a user of a running server (design.md §21): the address and API key from `--url` /
 * `--key` or APPMETA_URL / APPMETA_KEY, every call in the API's envelope, and the documented exit
 * codes — 0 done, 1 usage, 2 invalid input, 3 conflict or needs approval, 4 partial failure,
 * 5 server unreachable.
 */

export const EXIT = { done: 0, usage: 1, invalid: 2, conflict: 3, partial: 4, unreachable: 5 } as const;

/** A failure of a remote command, with the exit code it ends the process with. */
export class RemoteError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
    this.name = 'RemoteError';
  }
}

export interface RemoteOptions {
  url?: string;
  key?: string;
}

/** The exit code of an API error: what a CI step can branch on. */
function exitCodeOf(status: number, code: string): number {
  if (status === 409 || code === 'APPROVAL_REQUIRED') return EXIT.conflict;
  if (status === 503 || status === 502 || status === 504) return EXIT.unreachable;
  return EXIT.invalid;
}

export function createRemote(options: RemoteOptions, env: NodeJS.ProcessEnv = process.env) {
  const base = (options.url ?? env.APPMETA_URL ?? '').replace(/\/+$/, '');
  const key = options.key ?? env.APPMETA_KEY ?? '';
  if (base === '')
    throw new RemoteError(
      'USAGE',
      'Give the server: --url or APPMETA_URL (e.g. http://localhost:3000)',
      EXIT.usage,
    );
  if (key === '') throw new RemoteError('USAGE', 'Give an API key: --key or APPMETA_KEY (amk_…)', EXIT.usage);

  async function send(
    method: string,
    route: string,
    init: { json?: unknown; body?: Buffer; type?: string; headers?: Record<string, string> } = {},
  ) {
    let response: Response;
    try {
      response = await fetch(`${base}/api/v1${route}`, {
        method,
        headers: {
          authorization: `Bearer ${key}`,
          ...(init.json !== undefined && { 'content-type': 'application/json' }),
          ...(init.type !== undefined && { 'content-type': init.type }),
          ...init.headers,
        },
        ...(init.json !== undefined && { body: JSON.stringify(init.json) }),
        ...(init.body !== undefined && { body: init.body }),
      });
    } catch (error) {
      // fetch says only "fetch failed"; its cause says why (ECONNREFUSED, a DNS failure).
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const why = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new RemoteError('UNREACHABLE', `${base} cannot be reached: ${why}`, EXIT.unreachable);
    }
    return response;
  }

  async function dataOf<T>(response: Response): Promise<T> {
    const body = (await response.json().catch(() => null)) as
      { success: true; data: T } | { success: false; error: { code: string; message: string } } | null;
    if (body === null)
      throw new RemoteError(
        'UNEXPECTED',
        `${base} answered ${response.status} without JSON`,
        EXIT.unreachable,
      );
    if (!body.success)
      throw new RemoteError(
        body.error.code,
        body.error.message,
        exitCodeOf(response.status, body.error.code),
      );
    return body.data;
  }

  return {
    base,
    /** A JSON call; answers its `data`, or throws the API's error with its exit code. */
    async call<T>(
      method: string,
      route: string,
      json?: unknown,
      headers?: Record<string, string>,
    ): Promise<T> {
      return dataOf<T>(
        await send(method, route, { ...(json !== undefined && { json }), ...(headers && { headers }) }),
      );
    },
    /** A call with a binary body (an archive, a file). */
    async upload<T>(route: string, body: Buffer, type: string): Promise<T> {
      return dataOf<T>(await send('POST', route, { body, type }));
    },
    /** A binary answer (an export). */
    async download(route: string): Promise<Buffer> {
      const response = await send('GET', route);
      if (!response.ok) await dataOf(response);
      return Buffer.from(await response.arrayBuffer());
    },
  };
}

export type Remote = ReturnType<typeof createRemote>;
