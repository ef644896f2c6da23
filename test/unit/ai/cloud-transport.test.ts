import { describe, expect, test } from "bun:test";
import { readEventStream } from "../../../core/ai/cloud/event-stream.ts";
import { encodeEventStreamMessage } from "../../support/standin/event-stream.ts";
import { parseIni } from "../../../core/ai/cloud/ini.ts";
import { signV4 } from "../../../core/ai/cloud/sigv4.ts";
import { azureDeployment } from "../../../core/ai/cloud/azure.ts";
import { anthropicCloudBody } from "../../../core/ai/cloud/transport.ts";

const EXAMPLE = { accessKeyId: "AKIDEXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY" };

function streamOf(...chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function all(body: ReadableStream<Uint8Array>) {
  const out = [];
  for await (const message of readEventStream(body)) out.push(message);
  return out;
}

describe("SigV4", () => {
  test("AWS's own test vector (get-vanilla) signs to its documented signature", () => {
    const headers = signV4({ method: "GET", url: new URL("https://example.amazonaws.com/"), headers: {}, body: "", region: "us-east-1", service: "service", credentials: EXAMPLE, date: new Date("2015-08-30T12:36:00Z") });
    expect(headers.authorization).toBe(
      "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, SignedHeaders=host;x-amz-date, Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31",
    );
    expect(headers["x-amz-date"]).toBe("20150830T123600Z");
  });

  test("a session token is sent and signed; a different body or path changes the signature", () => {
    const base = { method: "POST", headers: { "content-type": "application/json" }, region: "eu-west-1", service: "bedrock", date: new Date("2026-11-27T10:00:00Z") };
    const url = new URL("https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-x-v1%3A0/invoke-with-response-stream");
    const one = signV4({ ...base, url, body: "{}", credentials: { ...EXAMPLE, sessionToken: "tok" } });
    expect(one["x-amz-security-token"]).toBe("tok");
    expect(one.authorization).toContain("SignedHeaders=content-type;host;x-amz-date;x-amz-security-token");
    const otherBody = signV4({ ...base, url, body: "{ }", credentials: { ...EXAMPLE, sessionToken: "tok" } });
    const otherPath = signV4({ ...base, url: new URL(url.href.replace("x-v1", "y-v1")), body: "{}", credentials: { ...EXAMPLE, sessionToken: "tok" } });
    expect(new Set([one.authorization, otherBody.authorization, otherPath.authorization]).size).toBe(3);
  });
});

describe("AWS event stream", () => {
  test("messages split across chunks come out whole, headers and payload intact", async () => {
    const a = encodeEventStreamMessage({ ":event-type": "chunk", ":message-type": "event" }, new TextEncoder().encode('{"bytes":"e30="}'));
    const b = encodeEventStreamMessage({ ":message-type": "exception", ":exception-type": "throttlingException" }, new TextEncoder().encode('{"message":"slow down"}'));
    const joined = new Uint8Array([...a, ...b]);
    const messages = await all(streamOf(joined.subarray(0, 5), joined.subarray(5, a.length + 3), joined.subarray(a.length + 3)));
    expect(messages.map((m) => m.headers)).toEqual([
      { ":event-type": "chunk", ":message-type": "event" },
      { ":message-type": "exception", ":exception-type": "throttlingException" },
    ]);
    expect(new TextDecoder().decode(messages[1]!.payload)).toBe('{"message":"slow down"}');
  });

  test("a flipped byte fails the checksum; a cut stream is an error, not a short reply", async () => {
    const message = encodeEventStreamMessage({ ":event-type": "chunk" }, new TextEncoder().encode("{}"));
    const damaged = message.slice();
    damaged[damaged.length - 6]! ^= 0xff;
    await expect(all(streamOf(damaged))).rejects.toThrow("checksum");
    await expect(all(streamOf(message.subarray(0, message.length - 3)))).rejects.toThrow("ended inside a message");
  });
});

describe("cloud request shapes", () => {
  test("~/.aws files: sections, comments, and indented sub-sections skipped", () => {
    const ini = parseIni("# c\n[default]\nregion = eu-west-1\ns3 =\n  max_concurrent_requests = 10\n[profile work]\naws_access_key_id=AKIA\n; x\n");
    expect(ini.get("default")).toEqual({ region: "eu-west-1", s3: "" });
    expect(ini.get("profile work")).toEqual({ aws_access_key_id: "AKIA" });
  });

  test("an Anthropic body for Bedrock and Vertex: no model, the version in the body, betas moved from the header", () => {
    const body = anthropicCloudBody({ model: "m", stream: true, max_tokens: 5 }, "bedrock-2023-05-31", { "anthropic-beta": "a, b" }, false);
    expect(body).toEqual({ anthropic_version: "bedrock-2023-05-31", max_tokens: 5, anthropic_beta: ["a", "b"] });
    expect(anthropicCloudBody({ model: "m", stream: true }, "vertex-2023-10-16", {}, true)).toEqual({ anthropic_version: "vertex-2023-10-16", stream: true });
  });

  test("Azure deployment names from AZURE_OPENAI_DEPLOYMENT_NAME_MAP, else the model's id", () => {
    const env = { AZURE_OPENAI_DEPLOYMENT_NAME_MAP: "gpt-6.2-sol=prod, o9 = reasoning" };
    expect(azureDeployment("gpt-6.2-sol", env)).toBe("prod");
    expect(azureDeployment("o9", env)).toBe("reasoning");
    expect(azureDeployment("gpt-5", env)).toBe("gpt-5");
  });
});
