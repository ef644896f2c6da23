import { z } from "zod";

/** The schema under the wrappers that only say "may be missing" or "has a default". */
export function unwrap(schema: z.ZodType): z.ZodType {
  let inner: z.ZodType = schema;
  while (inner instanceof z.ZodDefault || inner instanceof z.ZodPrefault || inner instanceof z.ZodOptional || inner instanceof z.ZodNullable) {
    inner = inner.unwrap() as z.ZodType;
  }
  return inner;
}

/** The (unwrapped) schema that validates the value at `path`, or undefined when no such place exists. */
export function schemaAt(schema: z.ZodType, path: readonly PropertyKey[]): z.ZodType | undefined {
  let current = unwrap(schema);
  for (const key of path) {
    if (current instanceof z.ZodObject) {
      const child = (current.shape as Record<PropertyKey, z.ZodType | undefined>)[key];
      if (!child) return undefined;
      current = unwrap(child);
    } else if (current instanceof z.ZodRecord) {
      current = unwrap(current.valueType as z.ZodType);
    } else if (current instanceof z.ZodArray) {
      current = unwrap(current.element as z.ZodType);
    } else {
      return undefined;
    }
  }
  return current;
}

/** The keys an object schema allows, in declaration order; empty for anything else. */
export function allowedKeys(schema: z.ZodType | undefined): string[] {
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}
