// The practical ceiling of one Node process: node:http answering fixed bytes (argv: port, file with
// {contentType, body}).
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import http from 'node:http';
import process from 'node:process';

const [, , port, file] = process.argv;
const { contentType, body } = JSON.parse(fs.readFileSync(file, 'utf8'));
const bytes = Buffer.from(body);
http
  .createServer((request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': contentType, 'content-length': bytes.length });
    response.end(bytes);
  })
  .listen(Number(port), '127.0.0.1', () => process.stdout.write('ready\n'));
