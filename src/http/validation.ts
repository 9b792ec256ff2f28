import AjvModule, { type ValidateFunction } from 'ajv';
import formatsModule from 'ajv-formats';
import type { FastifySchema, FastifySchemaCompiler } from 'fastify';
import type { DeferredCompilation } from './deferred-compilation.js';

// ajv and ajv-formats are CommonJS; under NodeNext their default export is the module object.
const Ajv = AjvModule.default;
const addFormats = formatsModule.default;

function createAjv(coerceTypes: boolean) {
  const ajv = new Ajv({
    // Unknown body fields must be 400 (design.md §5), so nothing is silently removed.
    removeAdditional: false,
    useDefaults: true,
    coerceTypes,
    allErrors: true,
    // Errors carry the value checked, so a length error can say how long the value was.
    verbose: true,
    strict: false,
  });
  addFormats(ajv);
  return ajv;
}

/**
 * Bodies are validated without type coercion ("wrong types" are 400: 123 is not a name), while
 * query strings and path parameters, which arrive as text, are coerced to their declared types.
 */
export function createValidatorCompiler(
  sharedSchemas: object[],
  deferred: DeferredCompilation,
): FastifySchemaCompiler<FastifySchema> {
  const strict = createAjv(false);
  const coercing = createAjv(true);
  for (const schema of sharedSchemas) {
    strict.addSchema(schema);
    coercing.addSchema(schema);
  }
  return ({ schema, httpPart }) => {
    const validator = deferred.defer(() => (httpPart === 'body' ? strict : coercing).compile(schema));
    return (data: unknown) => {
      const validate: ValidateFunction = validator();
      return validate(data) ? { value: data } : { error: validate.errors as never };
    };
  };
}
