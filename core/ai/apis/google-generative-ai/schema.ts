type Json = Record<string, unknown>;

/** The keywords of Gemini's Schema object (an OpenAPI 3.0 subset); anything else is rejected. */
const KEPT = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "items",
  "minItems",
  "maxItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "minimum",
  "maximum",
  "anyOf",
  "propertyOrdering",
  "default",
  "example",
]);

/** Gemini accepts only these string formats and fails the request on any other. */
const STRING_FORMATS = new Set(["enum", "date-time"]);

/**
 * Converts a tool's JSON Schema (as zod emits it) to what Gemini's functionDeclarations accept:
 * local `$ref`s inlined, `const` as a one-value enum, `["T","null"]` as `nullable`, `oneOf` as
 * `anyOf`, single-branch `allOf` merged, and unsupported keywords (`additionalProperties`,
 * `$schema`, `exclusiveMinimum`, ...) dropped.
 */
export function toGeminiSchema(schema: unknown, root: unknown = schema, depth = 0): unknown {
  if (schema === null || typeof schema !== "object" || Array.isArray(schema)) return schema;
  // Recursive $refs cannot be expressed; past this depth the shape is left open.
  if (depth > 24) return { type: "object" };
  let s = schema as Json;

  if (typeof s.$ref === "string") {
    const target = resolveRef(root, s.$ref);
    const { $ref: _, ...rest } = s;
    s = { ...(target ?? { type: "object" }), ...rest };
  }
  if (Array.isArray(s.allOf) && s.allOf.length === 1) {
    const { allOf, ...rest } = s;
    s = { ...(allOf[0] as Json), ...rest };
  }

  const out: Json = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === "properties" && value && typeof value === "object") {
      out.properties = Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, toGeminiSchema(v, root, depth + 1)]));
    } else if (key === "items") {
      out.items = toGeminiSchema(Array.isArray(value) ? value[0] : value, root, depth + 1);
    } else if (key === "anyOf" || key === "oneOf") {
      const branches = (value as unknown[]).map((v) => toGeminiSchema(v, root, depth + 1) as Json);
      const nonNull = branches.filter((b) => b.type !== "null");
      if (nonNull.length < branches.length) out.nullable = true;
      if (nonNull.length === 1) Object.assign(out, nonNull[0]);
      else out.anyOf = nonNull;
    } else if (key === "const") {
      out.enum = [value];
    } else if (key === "type" && Array.isArray(value)) {
      const types = value.filter((t) => t !== "null");
      if (types.length < value.length) out.nullable = true;
      if (types.length === 1) out.type = types[0];
      else if (types.length > 1) out.anyOf = types.map((t) => ({ type: t }));
    } else if (key === "format") {
      if (s.type !== "string" || STRING_FORMATS.has(value as string)) out.format = value;
    } else if (key === "enum") {
      // Gemini's enums are strings.
      out.enum = (value as unknown[]).map(String);
    } else if (KEPT.has(key)) {
      out[key] = value;
    }
  }
  if (out.enum && out.type === undefined) out.type = "string";
  if (Array.isArray(out.required) && out.properties && typeof out.properties === "object") {
    const names = new Set(Object.keys(out.properties));
    out.required = (out.required as string[]).filter((name) => names.has(name));
  }
  return out;
}

function resolveRef(root: unknown, ref: string): Json | undefined {
  if (!ref.startsWith("#")) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(1).split("/").filter(Boolean)) {
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Json)[key];
  }
  return node && typeof node === "object" ? (node as Json) : undefined;
}
