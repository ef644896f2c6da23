import type { RenderContext, WireFormat } from "./format.ts";
import { type Reply, split, stopOf, usageOf } from "./script.ts";

const STATUS: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
};

const MESSAGES: Record<number, string> = {
  400: "API key not valid. Please pass a valid API key.",
  401: "API key not valid. Please pass a valid API key.",
  429: "Resource has been exhausted (e.g. check quota).",
  500: "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting",
};

function events(reply: Reply, context: RenderContext): string[] {
  const usage = usageOf(reply);
  const usageMetadata = {
    promptTokenCount: usage.input + usage.cacheRead,
    candidatesTokenCount: usage.output,
    totalTokenCount: usage.input + usage.cacheRead + usage.output,
    ...(usage.cacheRead > 0 ? { cachedContentTokenCount: usage.cacheRead } : {}),
  };
  const chunks: Record<string, unknown>[][] = [];
  for (const piece of reply.thinking === undefined ? [] : split(reply.thinking)) chunks.push([{ text: piece, thought: true }]);
  for (const piece of reply.text === undefined ? [] : split(reply.text)) chunks.push([{ text: piece }]);
  const calls = (reply.toolCalls ?? []).map((call, n) => ({
    functionCall: { name: call.name, args: call.arguments },
    // Thinking models sign the first function call of a step.
    ...(n === 0 && reply.thinking !== undefined ? { thoughtSignature: `tsig_standin_${context.serial}` } : {}),
  }));
  if (calls.length > 0) chunks.push(calls);
  if (chunks.length === 0) chunks.push([{ text: "" }]);

  const finishReason = stopOf(reply) === "length" ? "MAX_TOKENS" : "STOP";
  const grounding = reply.webSearch ? { groundingMetadata: groundingMetadata(reply.webSearch, reply.text ?? "") } : {};
  // Gemini frames its SSE with CRLF line ends.
  return chunks.map(
    (parts, i) =>
      `data: ${JSON.stringify({
        candidates: [{ content: { parts, role: "model" }, index: 0, ...(i === chunks.length - 1 ? { finishReason, ...grounding } : {}) }],
        usageMetadata,
        modelVersion: context.model,
        responseId: `standin-${context.serial}`,
      })}\r\n\r\n`,
  );
}

/**
 * Grounding with Google Search as the final chunk carries it: the queries, the search widget, the
 * results as chunks (Google's redirect links are the real ones' shape; the scripted URL stands in),
 * and the text's segments each backed by a result (UTF-8 byte offsets, as Google counts them).
 */
function groundingMetadata(search: NonNullable<Reply["webSearch"]>, text: string): Record<string, unknown> {
  const bytes = Buffer.byteLength(text);
  const groundingSupports = search.results.map((_, n) => ({
    segment: { startIndex: 0, endIndex: bytes, text },
    groundingChunkIndices: [n],
    confidenceScores: [0.9],
  }));
  return {
    webSearchQueries: [search.query],
    searchEntryPoint: { renderedContent: `<style>.container{}</style><div class="container">${search.query}</div>` },
    groundingChunks: search.results.map((r) => ({ web: { uri: r.url, title: new URL(r.url).hostname } })),
    groundingSupports,
  };
}

export const googleFormat: WireFormat = {
  name: "google",
  events,
  error: (status, message, kind) => ({
    error: { code: status, message: message ?? MESSAGES[status] ?? `error ${status}`, status: kind ?? STATUS[status] ?? (status >= 500 ? "INTERNAL" : "INVALID_ARGUMENT") },
  }),
  streamError: (message, kind) => `data: ${JSON.stringify({ error: { code: 503, message, status: kind } })}\r\n\r\n`,
  overloaded: { status: 503, message: "The model is overloaded. Please try again later.", kind: "UNAVAILABLE" },
};
