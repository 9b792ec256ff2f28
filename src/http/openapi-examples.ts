/**
 * A request and response example for the operations, recorded from real runs of the test suite
 * (`APPMETA_EXAMPLES_UPDATE=1`, see test/support/openapi-examples.ts) and checked against the
 * document's schemas by test/http/http-contract.test.ts. Added to the document once, when it is built.
 */
import recorded from './openapi-examples.json' with { type: 'json' };

export interface RecordedExample {
  status: string;
  request?: unknown;
  response: unknown;
}

type Operation = {
  operationId?: string;
  requestBody?: { content?: Record<string, { example?: unknown }> };
  responses?: Record<string, { $ref?: string; content?: Record<string, { example?: unknown }> }>;
};

export const EXAMPLES = recorded as Record<string, RecordedExample>;

/** Puts each operation's recorded example on its JSON request body and success response. */
export function addExamples(paths: Record<string, Record<string, Operation>>): void {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item)) {
      const example = operation.operationId === undefined ? undefined : EXAMPLES[operation.operationId];
      if (example === undefined) continue;
      const json = operation.responses?.[example.status]?.content?.['application/json'];
      if (json !== undefined) json.example = example.response;
      const body = operation.requestBody?.content?.['application/json'];
      if (body !== undefined && example.request !== undefined) body.example = example.request;
    }
  }
}
