/**
 * Each tool's `outputSchema`: the `data` of the REST answer of the operation it performs (a tool
 * answers what the same domain function answers REST), made a zod schema once per process. A
 * tool whose answer has several shapes (a list or one item, a push, its dry run or its queued
 * operation) declares one object naming every property any shape has, none required.
 */
import { z } from 'zod';

export type DataSchemaOf = (operationId: string) => object | undefined;

type JsonObject = {
  type?: unknown;
  properties?: Record<string, object>;
  required?: string[];
  anyOf?: JsonObject[];
  oneOf?: JsonObject[];
};

const made = new Map<string, z.ZodObject | null>();

/** A TypeBox schema as plain JSON Schema (its symbols and `$id`s dropped). */
const plain = (schema: object): JsonObject =>
  JSON.parse(
    JSON.stringify(schema, (key, value: unknown) => (key === '$id' ? undefined : value)),
  ) as JsonObject;

/** The object shapes a data schema allows: itself, or each object of its union. */
const shapesOf = (schema: JsonObject): JsonObject[] =>
  schema.type === 'object' ? [schema] : (schema.anyOf ?? schema.oneOf ?? []).flatMap(shapesOf);

/** One object naming every property any shape has, none required; a property the shapes type differently takes anything. */
function merged(shapes: JsonObject[]): JsonObject {
  const properties: Record<string, object> = {};
  for (const shape of shapes) {
    for (const [name, property] of Object.entries(shape.properties ?? {})) {
      const known = properties[name];
      properties[name] =
        known === undefined || JSON.stringify(known) === JSON.stringify(property) ? property : {};
    }
  }
  return { type: 'object', properties };
}

export function outputSchemaFor(
  tool: string,
  operations: readonly string[],
  dataSchemaOf: DataSchemaOf,
): z.ZodObject | undefined {
  if (!made.has(tool)) {
    const shapes = operations
      .map(dataSchemaOf)
      .filter((s): s is object => s !== undefined)
      .flatMap((s) => shapesOf(plain(s)));
    const schema = shapes.length === 0 ? null : shapes.length === 1 ? shapes[0]! : merged(shapes);
    made.set(tool, schema === null ? null : (z.fromJSONSchema(schema as never) as z.ZodObject));
  }
  return made.get(tool) ?? undefined;
}
