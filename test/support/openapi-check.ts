/**
 * Checks live responses against the OpenAPI document the service serves: the status must be one
 * the operation documents, and a JSON body must match that response's schema. The document is
 * OpenAPI 3.1, whose schemas are JSON Schema 2020-12.
 */
import Ajv2020Module from 'ajv/dist/2020.js';
import formatsModule from 'ajv-formats';

const Ajv2020 = Ajv2020Module.default;
const addFormats = formatsModule.default;

type Doc = {
  paths: Record<
    string,
    Record<string, { operationId?: string; requestBody?: any; responses: Record<string, any> }>
  >;
  components: { responses?: Record<string, any> };
};

const pointer = (...parts: string[]) =>
  parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

export function createResponseChecker(doc: Doc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  const byId = new Map<
    string,
    { path: string; method: string; responses: Record<string, any>; takesJson: boolean }
  >();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation.operationId !== undefined)
        byId.set(operation.operationId, {
          path,
          method,
          responses: operation.responses,
          takesJson: operation.requestBody?.content?.['application/json'] !== undefined,
        });
    }
  }
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  const validateAt = (ref: string, value: unknown, what: string): string | null => {
    let validate = compiled.get(ref);
    if (validate === undefined) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    if (validate(value)) return null;
    return `${what}: ${(validate.errors ?? [])
      .slice(0, 5)
      .map((e) => `${e.instancePath || '/'} ${e.message}`)
      .join('; ')}`;
  };
  return {
    /** Null when a JSON request body is one the operation takes, else what is wrong with it. */
    checkRequest(operationId: string, body: unknown): string | null {
      const operation = byId.get(operationId);
      if (operation === undefined) return `${operationId} is not in the document`;
      if (!operation.takesJson) return `${operationId} takes no JSON body`;
      const at = `openapi.json#/${pointer('paths', operation.path, operation.method, 'requestBody', 'content', 'application/json', 'schema')}`;
      return validateAt(at, body, `${operationId} request`);
    },
    /** Null when the answer is one the document describes, else what is wrong with it. */
    check(operationId: string, status: number, body: unknown): string | null {
      const operation = byId.get(operationId);
      if (operation === undefined) return `${operationId} is not in the document`;
      let response = operation.responses[String(status)];
      let at = `openapi.json#/${pointer('paths', operation.path, operation.method, 'responses', String(status))}`;
      if (response === undefined) {
        return `${operationId} answered ${status}, which it does not document (${Object.keys(operation.responses).join(', ')})`;
      }
      if (typeof response.$ref === 'string') {
        const name = response.$ref.split('/').pop()!;
        response = doc.components.responses?.[name];
        at = `openapi.json#/${pointer('components', 'responses', name)}`;
      }
      const json = response?.content?.['application/json'];
      if (json === undefined || typeof body !== 'object' || body === null) return null;
      const ref = `${at}/content/application~1json/schema`;
      let validate = compiled.get(ref);
      if (validate === undefined) {
        validate = ajv.compile({ $ref: ref });
        compiled.set(ref, validate);
      }
      if (validate(body)) return null;
      return `${operationId} ${status}: ${(validate.errors ?? [])
        .slice(0, 5)
        .map((e) => `${e.instancePath || '/'} ${e.message}`)
        .join('; ')}`;
    },
  };
}
