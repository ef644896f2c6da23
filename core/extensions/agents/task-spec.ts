// Imported with { type: "macro" } by task-tool.ts: the task tool's JSON Schema is made when omp is
// bundled, so zod is not loaded before the tool's first call.
import { wireSchema } from "../../tools/define.ts";
import { TaskInput } from "./task-schema.ts";

export function taskParameters(): Record<string, unknown> {
  return wireSchema(TaskInput);
}
