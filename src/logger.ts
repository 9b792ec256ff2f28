/**
 * The service's logger: JSON lines on stderr, with secrets kept out. Headers and body fields that
 * carry credentials are redacted by path; URLs are logged sanitised (sanitizeUrl), since a
 * credential can travel in a query string or a path (an invite link is its own credential).
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

const REDACTED = '[REDACTED]';

/** Paths that may hold secrets; pino writes [REDACTED] in their place. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  '*.apiKey',
  '*.privateKey',
  '*.private_key',
  '*.serviceAccount',
  '*.secret',
  '*.password',
  '*.token',
  '*.accessToken',
  '*.access_token',
  '*.assertion',
];

/** Query parameters whose value is a credential whatever it looks like. */
const SECRET_PARAMETER = /key|token|secret|passw|signature|sig$|auth|session|credential|code/i;
/** Path segments after these are credentials: invite links, sign-in links. */
const SECRET_AFTER = new Set(['invites', 'invite', 'sign-in', 'sign-in-links']);
/**
 * Values that look like credentials wherever they appear: our key and secret prefixes, Google
 * access tokens, JWTs, and any long base64url run (a hex digest such as a file's SHA-256 is not one).
 */
const SECRET_VALUE =
  /(amk_|ams_|asl_|inv_|whsec_|ya29\.)[A-Za-z0-9._-]+|eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*|(?=[A-Za-z0-9_-]*[g-zG-Z_-])[A-Za-z0-9_-]{40,}/g;

/** A URL (path and query) with every credential-like part replaced by [REDACTED]. */
export function sanitizeUrl(url: string): string {
  const queryAt = url.indexOf('?');
  const path = queryAt === -1 ? url : url.slice(0, queryAt);
  const segments = path.split('/');
  const safePath = segments
    .map((segment, i) =>
      i > 0 && SECRET_AFTER.has(segments[i - 1]!.toLowerCase()) && segment !== ''
        ? REDACTED
        : segment.replace(SECRET_VALUE, REDACTED),
    )
    .join('/');
  if (queryAt === -1) return safePath;
  const query = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      if (equals === -1) return name.replace(SECRET_VALUE, REDACTED);
      const value = pair.slice(equals + 1);
      return `${name}=${SECRET_PARAMETER.test(decodeSafely(name)) ? REDACTED : value.replace(SECRET_VALUE, REDACTED)}`;
    })
    .join('&');
  return `${safePath}?${query}`;
}

const decodeSafely = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/** What a request log line says about the request: never its headers or body. */
const serializers = {
  req: (request: {
    method?: string;
    url?: string;
    /** The URL as sent, where rewriteUrl changed it (the /v1 alias). */
    originalUrl?: string;
    host?: string;
    ip?: string;
    socket?: { remotePort?: number };
  }) => {
    const url = request.originalUrl ?? request.url;
    return {
      method: request.method,
      url: url === undefined ? undefined : sanitizeUrl(url),
      host: request.host,
      remoteAddress: request.ip,
      remotePort: request.socket?.remotePort,
    };
  },
};

export function createLogger(
  config: Pick<Config, 'logLevel'>,
  // Logs go to stderr so that stdout carries only what commands print (keys, --json output).
  destination: DestinationStream = pino.destination({ dest: 2, sync: false }),
): Logger {
  return pino(
    { level: config.logLevel, redact: { paths: REDACT, censor: REDACTED }, serializers },
    destination,
  );
}

const { chindingsSym } = pino.symbols;

/**
 * Fastify's per-request logger: the service's logger with the request id bound. pino.child
 * formats its bindings through every redaction path, about 2 µs of each request (#22); a request
 * id is a plain string, so its binding is written directly, as pino writes it. Route options
 * (a log level of their own) and other bindings take pino's way.
 */
export function requestLogger(logger: Logger, bindings: Record<string, unknown>, options: object): Logger {
  const id = bindings.reqId;
  if (Object.keys(options).length > 0 || Object.keys(bindings).length !== 1 || typeof id !== 'string') {
    return logger.child(bindings, options);
  }
  const child = Object.create(logger) as Logger & Record<symbol, string>;
  child[chindingsSym] =
    `${(logger as unknown as Record<symbol, string>)[chindingsSym]},"reqId":${JSON.stringify(id)}`;
  return child;
}
