// A webhook receiver for appmeta: verifies each delivery's signature with `standardwebhooks`
// (the Standard Webhooks reference implementation) and appends the verified events to
// webhook-events.log. The signing secret (whsec_...) is read from webhook-secret.txt, where the
// README's example writes what POST /api/v1/organization/webhooks answered.
//
//   node examples/webhook-receiver.mjs 4020
import fs from 'node:fs';
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const port = Number(process.argv[2] ?? 4020);

http
  .createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const secret = fs.readFileSync('webhook-secret.txt', 'utf8').trim();
        const event = new Webhook(secret).verify(body, request.headers);
        fs.appendFileSync('webhook-events.log', `verified ${event.type} ${JSON.stringify(event.data)}\n`);
        response.writeHead(204).end();
      } catch (error) {
        // Unsigned, wrongly signed or too old: refused, and appmeta retries on its schedule.
        console.error(`refused a delivery: ${error.message}`);
        response.writeHead(400).end();
      }
    });
  })
  .listen(port, '127.0.0.1', () => console.log(`webhook receiver listening on http://127.0.0.1:${port}`));
