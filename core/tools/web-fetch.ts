import { declared } from "./declare.ts";
import { webFetch as webFetchDeclaration } from "./declarations/web-fetch.ts";
import { z } from "zod";
import { fetchForModel } from "./fetch-page.ts";
import type { ToolDefinition } from "./types.ts";
import type { UrlDetails } from "./read-details.ts";

const schema = z.object({
  url: z.string().describe("http(s) URL"),
  offset: z.int().min(1).optional().describe("1-based line to start from"),
  limit: z.int().min(1).optional().describe("Max lines (default 2000)"),
  raw: z.boolean().optional().describe("Return HTML source unconverted"),
});

export const webFetchTool: ToolDefinition<typeof schema, UrlDetails> = {
  ...declared(webFetchDeclaration),
  schema,
  execute: (input, context) => fetchForModel(input, context, "web_fetch"),
};
