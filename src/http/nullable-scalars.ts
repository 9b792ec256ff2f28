/**
 * Response schemas as the serializer gets them. fast-json-stringify writes a union (`anyOf`) by
 * running a validator against each branch until one matches, for every value; a nullable field,
 * `Nullable(Type.String())`, is such a union, so each null or string in a response cost a
 * validator call, and a null one an error object from its first branch (13 % of what the service
 * allocated under the project list, BENCHMARKS.md, #22). The same field written as
 * `{ type: 'string', nullable: true }` is one `=== null` test. Only the serializer's copy changes:
 * validation and the API document keep the unions.
 */
type Schema = Record<string | symbol, unknown>;

const SCALAR_TYPES = new Set(['string', 'number', 'integer', 'boolean']);

/** Keywords whose value is a schema, or a list or map of schemas, as our TypeBox schemas nest them. */
const SCHEMA_KEYWORDS = ['items', 'additionalProperties'] as const;
const SCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf'] as const;
const SCHEMA_MAPS = ['properties', 'patternProperties'] as const;

const isSchema = (value: unknown): value is Schema => typeof value === 'object' && value !== null;

/** `anyOf: [scalar, null]` (either order), with nothing else beside it: the scalar branch. */
function nullableScalar(schema: Schema): Schema | null {
  const branches = schema.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return null;
  if (Object.keys(schema).some((key) => key !== 'anyOf')) return null;
  const nullAt = branches.findIndex((branch) => isSchema(branch) && branch.type === 'null');
  if (nullAt === -1) return null;
  const other = branches[1 - nullAt] as unknown;
  if (!isSchema(other) || typeof other.type !== 'string' || !SCALAR_TYPES.has(other.type)) return null;
  if (['anyOf', 'oneOf', 'allOf', '$ref', 'nullable'].some((key) => key in other)) return null;
  return other;
}

/** A copy of `schema` with every nullable scalar written as `nullable: true`; unchanged parts are shared. */
export function withNullableScalars<T>(schema: T): T {
  return isSchema(schema) ? (rewrite(schema) as T) : schema;
}

function rewrite(schema: Schema): Schema {
  const scalar = nullableScalar(schema);
  if (scalar !== null) return { ...scalar, nullable: true };
  let copy: Schema | null = null;
  const set = (key: string, value: unknown) => {
    copy ??= { ...schema };
    copy[key] = value;
  };
  for (const key of SCHEMA_KEYWORDS) {
    const value = schema[key];
    if (!isSchema(value) || Array.isArray(value)) continue;
    const rewritten = rewrite(value);
    if (rewritten !== value) set(key, rewritten);
  }
  for (const key of SCHEMA_LISTS) {
    const list = schema[key];
    if (!Array.isArray(list)) continue;
    const rewritten = list.map((item: unknown) => (isSchema(item) ? rewrite(item) : item));
    if (rewritten.some((item, i) => item !== list[i])) set(key, rewritten);
  }
  for (const key of SCHEMA_MAPS) {
    const map = schema[key];
    if (!isSchema(map)) continue;
    let mapCopy: Schema | null = null;
    for (const [name, value] of Object.entries(map)) {
      if (!isSchema(value)) continue;
      const rewritten = rewrite(value);
      if (rewritten === value) continue;
      mapCopy ??= { ...map };
      mapCopy[name] = rewritten;
    }
    if (mapCopy !== null) set(key, mapCopy);
  }
  return copy ?? schema;
}
