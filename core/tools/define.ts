import { z } from "zod";
import type { Tool, ToolDefinition } from "./types.ts";

/**
 * What zod writes that rides every request and tells the model nothing it needs (request economy):
 * z.int()'s implicit safe-integer range, `additionalProperties: false` and a non-empty string's or
 * list's `minLength`/`minItems` of 1. The zod schema still checks all of it, and its error names what was wrong.
 */
function dropSchemaNoise(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropSchemaNoise(item);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  if (record.maximum === Number.MAX_SAFE_INTEGER) delete record.maximum;
  if (record.minimum === Number.MIN_SAFE_INTEGER) delete record.minimum;
  if (record.additionalProperties === false) delete record.additionalProperties;
  if (record.minLength === 1) delete record.minLength;
  if (record.minItems === 1) delete record.minItems;
  for (const value of Object.values(record)) dropSchemaNoise(value);
}

/**
 * A zod input schema as the JSON Schema providers are sent. "input": optional fields stay optional
 * and defaults do not become required. The rest copy leaves out `$schema` and zod's hidden
 * `~standard` property: the same plain JSON the bundle-time specs are.
 */
export function wireSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _schema, ...parameters } = z.toJSONSchema(schema, { io: "input" }) as Record<string, unknown>;
  dropSchemaNoise(parameters);
  return parameters;
}

/** A tool's zod input schema as the JSON Schema providers are sent. Throws when it is not an object schema. */
function inputJsonSchema(definition: ToolDefinition): Record<string, unknown> {
  let parameters: Record<string, unknown>;
  try {
    parameters = wireSchema(definition.schema);
  } catch (error) {
    throw new Error(`Tool ${definition.name}: its input schema cannot be expressed as JSON Schema`, { cause: error });
  }
  if (parameters.type !== "object") throw new Error(`Tool ${definition.name}: its input schema must be an object`);
  return parameters;
}

/**
 * A tool whose code is already in the process (tests, plugins; the built-in tools' bundle-time
 * specs are made with it too): its JSON Schema is converted now, so a bad schema fails here rather
 * than at the first request.
 */
export function defineTool<S extends z.ZodType>(definition: ToolDefinition<S>): Tool {
  const implementation = Promise.resolve(definition);
  return {
    name: definition.name,
    description: definition.description,
    effect: definition.effect,
    parameters: inputJsonSchema(definition),
    ...(definition.loadMode ? { loadMode: definition.loadMode } : {}),
    load: () => implementation,
  };
}
