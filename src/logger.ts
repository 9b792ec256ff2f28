import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

/** Paths that may hold secrets; pino writes [Redacted] in their place. */
const REDACT = [
  'req.headers.authorization',
  'req.headers.cookie',
  '*.apiKey',
  '*.privateKey',
  '*.serviceAccount',
];

export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  // Logs go to stderr so that stdout carries only what commands print (keys, --json output).
  return pino({ level: config.logLevel, redact: REDACT }, pino.destination({ dest: 2, sync: false }));
}
