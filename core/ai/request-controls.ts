import type { z } from "zod";
import type * as schema from "./request-controls-schema.ts";

/**
 * Request controls a gateway client may ask for and the agent never sets: which tool the model
 * must (or must not) call, where its text stops, and the shape its answer must take. Each wire
 * API spells them its own way: each API's folder (core/ai/apis/<id>/controls.ts) writes them into
 * its own request, and its WireApi says which it cannot take. Zod-free (schemas in
 * request-controls-schema.ts): the adapters load at start-up.
 */

export type ToolChoice = z.output<typeof schema.ToolChoice>;
export type StopSequences = z.output<typeof schema.StopSequences>;
export type ResponseFormat = z.output<typeof schema.ResponseFormat>;

export interface RequestControls {
  toolChoice?: ToolChoice;
  stop?: StopSequences;
  responseFormat?: ResponseFormat;
}

/** A JSON schema response format's fields, as both OpenAI APIs spell them. */
export function schemaFields(format: Extract<ResponseFormat, { type: "json_schema" }>): Record<string, unknown> {
  const fields: Record<string, unknown> = { name: format.name, schema: format.schema };
  if (format.description !== undefined) fields.description = format.description;
  if (format.strict !== undefined) fields.strict = format.strict;
  return fields;
}
