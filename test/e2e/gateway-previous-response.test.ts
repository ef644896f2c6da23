import { afterAll, beforeAll, expect, test } from "bun:test";
import { UPSTREAMS } from "../support/gateway.ts";
import { type SdkGateway, caught, startSdkGateway } from "../support/gateway-sdk.ts";

/**
 * Responses clients that let the gateway store replies (`store`, the API's default) continue a
 * conversation with `previous_response_id` alone; the upstream, whatever its format, gets the
 * whole conversation.
 */

const TOOL = { type: "function" as const, name: "read_file", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] }, strict: false };

let setup: SdkGateway;
beforeAll(async () => (setup = await startSdkGateway()));
afterAll(() => setup?.close());

test.each(UPSTREAMS.map((u) => [u.api, u] as const))("over %s: a tool result and a follow-up sent with previous_response_id reach the upstream with the turns before them", async (api, upstream) => {
  setup.standin.setScript([
    { text: "Reading it.", toolCalls: [{ name: "read_file", arguments: { path: "notes.txt" } }] },
    { text: "It says hi." },
    { text: "You are welcome." },
  ]);
  const before = setup.standin.requests.length;
  const first = await setup.openai.responses.create({ model: upstream.model, instructions: "Be terse.", tools: [TOOL], input: "What is in notes.txt?" });
  const call = first.output.find((item) => item.type === "function_call");
  expect(call?.type).toBe("function_call");
  const second = await setup.openai.responses
    .stream({
      model: upstream.model,
      instructions: "Be terse.",
      tools: [TOOL],
      previous_response_id: first.id,
      input: [{ type: "function_call_output", call_id: (call as { call_id: string }).call_id, output: "hi from notes" }],
    })
    .finalResponse();
  expect({ previous: second.previous_response_id, store: (first as { store?: boolean }).store }).toEqual({ previous: first.id, store: true });
  expect(second.output_text).toBe("It says hi.");
  const third = await setup.openai.responses.create({ model: upstream.model, instructions: "Be terse.", tools: [TOOL], previous_response_id: second.id, input: "Thanks!" });
  expect(third.output_text).toBe("You are welcome.");

  const bodies = setup.standin.requests.slice(before).filter((r) => r.method === "POST").map((r) => JSON.stringify(r.body));
  expect(bodies).toHaveLength(3);
  for (const text of ["What is in notes.txt?", "Reading it.", "hi from notes"]) expect(bodies[1]).toContain(text);
  for (const text of ["What is in notes.txt?", "Reading it.", "hi from notes", "It says hi.", "Thanks!"]) expect(bodies[2]).toContain(text);
  // Gemini matches a function response to its call by name: the stored call gives it.
  if (api === "google-generative-ai") expect(JSON.parse(bodies[1]!).contents.find((c: any) => c.parts.some((p: any) => p.functionResponse))?.parts[0].functionResponse.name).toBe("read_file");
});

test("a reply made with store: false, or one the gateway never made, cannot be continued: a 400 naming previous_response_id", async () => {
  setup.standin.setScript([{ text: "one" }]);
  const unstored = await setup.openai.responses.create({ model: "chat-up", store: false, input: "hi" });
  expect((unstored as { store?: boolean }).store).toBe(false);
  for (const id of [unstored.id, "resp_elsewhere"]) {
    const error = await caught(setup.openai.responses.create({ model: "chat-up", previous_response_id: id, input: "and then?" }));
    expect(error.status).toBe(400);
    expect(error.message).toContain(`previous_response_id: "${id}" is not known to this gateway`);
  }
});
