import { z } from "zod";
import type { Tool, ToolDefinition } from "./types.ts";

/** zod writes z.int()'s implicit safe-integer range into the schema; it only adds noise for the model. */
export function dropImplicitIntBounds(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) dropImplicitIntBounds(item);
    return;
  }
  if (node === null || typeof node !== "object") return;
  const record = node as Record<string, unknown>;
  if (record.maximum === Number.MAX_SAFE_INTEGER) delete record.maximum;
  if (record.minimum === Number.MIN_SAFE_INTEGER) delete record.minimum;
  for (const value of Object.values(record)) dropImplicitIntBounds(value);
}

/** A tool's zod input schema as the JSON Schema providers are sent. Throws when it is not an object schema. */
function inputJsonSchema(definition: ToolDefinition): Record<string, unknown> {
  let parameters: Record<string, unknown>;
  try {
    // "input": optional fields stay optional and defaults do not become required. The rest copy
    // leaves out zod's hidden `~standard` property too: the same plain JSON the bundle-time specs are.
    const { $schema, ...rest } = z.toJSONSchema(definition.schema, { io: "input" }) as Record<string, unknown>;
    parameters = rest;
  } catch (error) {
    throw new Error(`Tool ${definition.name}: its input schema cannot be expressed as JSON Schema`, { cause: error });
  }
  dropImplicitIntBounds(parameters);
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
