import { z } from "zod";

/** The request controls (request-controls.ts) as a gateway client sends them, translated to omp's terms. */

export const ToolChoice = z.union([z.enum(["auto", "none", "required"]), z.object({ name: z.string().min(1) })]);

export const StopSequences = z.array(z.string().min(1)).min(1);

export const ResponseFormat = z.discriminatedUnion("type", [
  z.object({ type: z.literal("json_object") }),
  z.object({
    type: z.literal("json_schema"),
    name: z.string().min(1),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().optional(),
    strict: z.boolean().optional(),
  }),
]);
