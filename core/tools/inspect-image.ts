import { declared } from "./declare.ts";
import { inspectImage as inspectImageDeclaration } from "./declarations/inspect-image.ts";
import { open, stat } from "node:fs/promises";
import { z } from "zod";
import { formatBytes } from "../format-bytes.ts";
import { detectImage, IMAGE_MIME } from "./file-kind.ts";
import { errorResult } from "./format.ts";
import { displayPath, readRefusal, resolveToolPath } from "./paths.ts";
import type { ToolDefinition, ToolResult } from "./types.ts";

/** The original's upload limit (MAX_IMAGE_INPUT_BYTES). */
export const MAX_IMAGE_INPUT_BYTES = 20 * 1024 * 1024;
/** An answer about one image needs no more. */
const MAX_ANSWER_TOKENS = 4096;
const SYSTEM_PROMPT = "You answer questions about one image. Describe only what the image shows; say so when it does not show what is asked. Be concise and exact (quote visible text verbatim).";

const schema = z.object({
  path: z.string().describe("Image file (PNG, JPEG, GIF, WebP)"),
  question: z.string().min(1).describe("What to find out about it"),
});

export interface InspectImageDetails {
  model?: string;
  imagePath?: string;
  mimeType?: string;
}

export const inspectImageTool: ToolDefinition<typeof schema, InspectImageDetails> = {
  ...declared(inspectImageDeclaration),
  schema,
  async execute(input, context): Promise<ToolResult<InspectImageDetails>> {
    const path = resolveToolPath(context.cwd, input.path);
    const shown = displayPath(context.cwd, path);
    const vision = await context.visionModel?.();
    if (!vision) {
      return errorResult("No vision-capable model is configured: the session's model does not take images. Set modelRoles.vision (or modelRoles.smol) in config.yml to a model that does, e.g. `modelRoles: {vision: anthropic/claude-sonnet-4-5}`.");
    }
    const refused = readRefusal(context, path);
    if (refused) return errorResult(refused);
    let size: number;
    try {
      size = (await stat(path)).size;
    } catch {
      return errorResult(`Image not found: ${shown}`);
    }
    if (size > MAX_IMAGE_INPUT_BYTES) return errorResult(`Image file too large: ${formatBytes(size)} exceeds ${formatBytes(MAX_IMAGE_INPUT_BYTES)} limit.`);
    const file = await open(path, "r");
    let bytes: Buffer;
    try {
      // Read only as far as the size checked: a file growing under us stays within the limit.
      bytes = Buffer.alloc(size);
      const { bytesRead } = await file.read(bytes, 0, size, 0);
      bytes = bytes.subarray(0, bytesRead);
    } finally {
      await file.close();
    }
    const format = detectImage(bytes.subarray(0, 64));
    if (!format) return errorResult("inspect_image only supports PNG, JPEG, GIF, and WEBP files detected by file content.");
    const mimeType = IMAGE_MIME[format];
    const { complete } = await import("../ai/index.ts");
    const { model, apiKey } = vision;
    const reply = await complete(
      model,
      {
        systemPrompt: SYSTEM_PROMPT,
        messages: [{ role: "user", content: [{ type: "image", data: bytes.toString("base64"), mimeType }, { type: "text", text: input.question }], timestamp: Date.now() }],
        tools: [],
      },
      { apiKey, maxTokens: Math.min(MAX_ANSWER_TOKENS, model.maxTokens), signal: context.signal },
    );
    const details = { model: `${model.provider}/${model.id}`, imagePath: path, mimeType };
    if (reply.stopReason === "aborted") return errorResult("inspect_image request aborted.", details);
    if (reply.stopReason === "error") return errorResult(reply.errorMessage || "inspect_image request failed.", details);
    const text = reply.content.flatMap((part) => (part.type === "text" ? [part.text] : [])).join("").trim();
    if (text === "") return errorResult("inspect_image model returned no text output.", details);
    return { content: [{ type: "text", text }], details };
  },
};
