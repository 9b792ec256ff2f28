/**
 * Every harness logs at trace level through the service's own logger (src/logger.ts: same
 * redaction, same serializers) into memory; when the harness closes, the log must hold nothing
 * shaped like a credential. So the whole request suite runs with its logs checked.
 */
import { Writable } from 'node:stream';

const SECRET_SHAPES: [string, RegExp][] = [
  ['an API key', /amk_[A-Za-z0-9_-]{20,}/],
  ['an invite id (the invite link is its credential)', /inv_[0-9a-z]{26}/],
  ['a webhook secret', /whsec_[A-Za-z0-9+/=_-]{10,}/],
  ['a private key', /-----BEGIN [A-Z ]*PRIVATE KEY-----/],
  ['a Google access token', /ya29\.[A-Za-z0-9_-]{10,}/],
  ['a JWT', /eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\./],
  ['a session cookie', /appmeta_session=[^;\s"]{10,}/],
];

export interface LogCapture {
  stream: Writable;
  lines: string[];
  /** Throws naming the first credential-shaped value found in the log. */
  assertNoSecrets(): void;
}

export function captureLogs(): LogCapture {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return {
    stream,
    lines,
    assertNoSecrets() {
      for (const line of lines) {
        for (const [what, shape] of SECRET_SHAPES) {
          const found = shape.exec(line);
          if (found !== null) {
            throw new Error(`The log holds ${what} (${found[0].slice(0, 12)}…) in: ${line.slice(0, 300)}`);
          }
        }
      }
    },
  };
}
