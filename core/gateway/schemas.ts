import { z } from "zod";
import { RequestError } from "./codec.ts";
import { failure } from "./errors.ts";
import { describeZodError } from "../errors/zod-issues.ts";

/**
 * The request bodies the gateway accepts, one schema per wire format. Objects are loose: every
 * field a format allows and the gateway has no use for (metadata, context_management, store,
 * parallel_tool_calls, ...) is accepted and ignored rather than rejected. Clients send `null` for
 * absent optionals, hence `nullish`.
 */

const Block = z.looseObject({ type: z.string() });
const JsonObject = z.record(z.string(), z.unknown());

export const AnthropicRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(z.looseObject({ role: z.string(), content: z.union([z.string(), z.array(Block)]) })),
  system: z.union([z.string(), z.array(Block)]).nullish(),
  // Required by the Messages API but absent from count_tokens; the model's limit applies then.
  max_tokens: z.number().int().positive().nullish(),
  stream: z.boolean().nullish(),
  temperature: z.number().nullish(),
  tools: z.array(z.looseObject({ name: z.string(), description: z.string().nullish(), input_schema: JsonObject.nullish() })).nullish(),
  thinking: z.looseObject({ type: z.string(), budget_tokens: z.number().nullish() }).nullish(),
  output_config: z.looseObject({ effort: z.string().nullish(), format: z.looseObject({ type: z.string() }).nullish() }).nullish(),
  metadata: z.looseObject({ user_id: z.string().nullish() }).nullish(),
  tool_choice: z.looseObject({ type: z.string() }).nullish(),
  stop_sequences: z.array(z.string()).nullish(),
});
export type AnthropicRequest = z.output<typeof AnthropicRequest>;

const ChatToolCall = z.looseObject({
  id: z.string(),
  type: z.string().nullish(),
  function: z.looseObject({ name: z.string(), arguments: z.string().nullish() }),
});

export const ChatRequest = z.looseObject({
  model: z.string().min(1),
  messages: z.array(
    z.looseObject({
      role: z.string(),
      content: z.union([z.string(), z.array(Block)]).nullish(),
      tool_calls: z.array(ChatToolCall).nullish(),
      tool_call_id: z.string().nullish(),
      reasoning_content: z.string().nullish(),
    }),
  ),
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().nullish() }).nullish(),
  max_tokens: z.number().int().positive().nullish(),
  max_completion_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  tools: z
    .array(z.looseObject({ type: z.string(), function: z.looseObject({ name: z.string(), description: z.string().nullish(), parameters: JsonObject.nullish() }).nullish() }))
    .nullish(),
  reasoning_effort: z.string().nullish(),
  prompt_cache_key: z.string().nullish(),
  user: z.string().nullish(),
  tool_choice: z.union([z.string(), z.looseObject({ type: z.string() })]).nullish(),
  stop: z.union([z.string(), z.array(z.string())]).nullish(),
  response_format: z.looseObject({ type: z.string() }).nullish(),
  n: z.number().int().positive().nullish(),
});
export type ChatRequest = z.output<typeof ChatRequest>;

export const ResponsesRequest = z.looseObject({
  model: z.string().min(1),
  input: z.union([z.string(), z.array(z.looseObject({ type: z.string().nullish(), role: z.string().nullish() }))]),
  instructions: z.string().nullish(),
  stream: z.boolean().nullish(),
  max_output_tokens: z.number().int().positive().nullish(),
  temperature: z.number().nullish(),
  tools: z
    .array(z.looseObject({ type: z.string(), name: z.string().nullish(), description: z.string().nullish(), parameters: JsonObject.nullish() }))
    .nullish(),
  reasoning: z.looseObject({ effort: z.string().nullish() }).nullish(),
  prompt_cache_key: z.string().nullish(),
  previous_response_id: z.string().nullish(),
  store: z.boolean().nullish(),
  tool_choice: z.union([z.string(), z.looseObject({ type: z.string() })]).nullish(),
  text: z.looseObject({ format: z.looseObject({ type: z.string() }).nullish() }).nullish(),
});
export type ResponsesRequest = z.output<typeof ResponsesRequest>;

/** The body as the format's schema reads it, or a 400 in the client's format. */
export function parseRequest<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (!result.success) throw new RequestError(failure("invalid_request", describeZodError(result.error, "body")));
  return result.data;
}
