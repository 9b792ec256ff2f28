/**
 * Answers produced below the router — Node's HTTP parser (431), the router's URL decoding (400) and
 * parameter length (414), a known path with another method (405) — are in the envelope too, with
 * a request id and the rate-limit headers. Sent over a real socket: inject cannot produce them.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness, type TestOrganization } from '../support/harness.js';

let h: Harness;
let org: TestOrganization;
let port: number;

beforeAll(async () => {
  h = await startHarness();
  org = await h.given.organization();
  port = Number(new URL(await h.app.listen({ port: 0, host: '127.0.0.1' })).port);
});
afterAll(() => h.close());

interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: any;
}

/** Sends raw bytes and parses the one response that comes back. */
function rawRequest(text: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = '', ...rest] = received.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      const body = rest.join('\r\n\r\n');
      resolve({
        status: Number(statusLine.split(' ')[1]),
        headers,
        body: body === '' ? null : JSON.parse(body),
      });
    });
    setTimeout(() => socket.end(), 500);
  });
}

const get = (path: string, extra = '') =>
  rawRequest(
    `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${org.admin.apiKey}\r\n${extra}Connection: close\r\n\r\n`,
  );

function expectEnvelope(res: RawResponse, status: number, message: RegExp) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({
    success: false,
    error: { code: 'INVALID_REQUEST', message: expect.stringMatching(message) },
  });
  expect(res.headers['x-request-id']).toMatch(/^req_/);
  for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) {
    expect(res.headers[header], header).toMatch(/^\d+$/);
  }
}

describe('answers from below the router', () => {
  it('431 for headers over the limit, in the envelope', async () => {
    expectEnvelope(
      await get('/api/v1/projects', `X-Big: ${'a'.repeat(20_000)}\r\n`),
      431,
      /larger than 16 KiB/,
    );
  });

  it('431 for a URL over the header limit', async () => {
    expectEnvelope(await get(`/api/v1/projects?x=${'a'.repeat(20_000)}`), 431, /URL included/);
  });

  it('414 for a path segment longer than 200 characters', async () => {
    expectEnvelope(await get(`/api/v1/projects/${'a'.repeat(300)}`), 414, /longer than 200 characters/);
  });

  it('400 for a malformed percent-encoding', async () => {
    expectEnvelope(await get('/api/v1/projects/%E0%A4%A'), 400, /malformed percent-encoding/);
  });

  it('400 for bytes that are not HTTP', async () => {
    const res = await rawRequest('NOT HTTP AT ALL\r\n\r\n');
    expectEnvelope(res, 400, /not valid HTTP/);
  });

  it('405 with Allow for a known path and another method, 404 for an unknown path', async () => {
    const wrong = await rawRequest(
      `PUT /api/v1/projects HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${org.admin.apiKey}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    );
    expectEnvelope(wrong, 405, /^PUT is not allowed here; use GET, HEAD, POST$/);
    expect(wrong.headers.allow).toBe('GET, HEAD, POST');
    const withParams = await h
      .client(org.admin.apiKey)
      .request('PUT', '/api/v1/projects/proj_x/listings/appstore/en-US');
    expect(withParams.status).toBe(405);
    expect(withParams.headers.allow).toBe('DELETE, GET, HEAD, PATCH');
    const unknown = await h.client(org.admin.apiKey).get('/api/v1/projects/proj_x/nothing');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('NOT_FOUND');
  });
});
