import { declared } from "./declare.ts";
import { browser as browserDeclaration } from "./declarations/browser.ts";
import { z } from "zod";
import { errorResult } from "./format.ts";
import { readRefusal } from "./paths.ts";
import type { ToolDefinition, ToolResult } from "./types.ts";

/** The original's clamp of the browser's time limit (TOOL_TIMEOUTS.browser), in seconds. */
const TIMEOUT = { default: 30, min: 1, max: 300 };

const schema = z.object({
  action: z.enum(["open", "run", "close"]).describe("open a tab, run code in it, or close it"),
  name: z.string().min(1).optional().describe('Tab name, reused across calls (default "main")'),
  timeout: z.number().optional().describe("Seconds (default 30, max 300)"),
  url: z.string().optional().describe("open: navigate here"),
  viewport: z
    .object({ width: z.int().min(100).max(4000), height: z.int().min(100).max(4000), scale: z.number().min(0.5).max(3).optional() })
    .optional()
    .describe("open: CSS pixels (default 1365x768, scale 1.25)"),
  wait_until: z.enum(["load", "domcontentloaded", "networkidle0", "networkidle2"]).optional().describe("open: navigation done at (default load)"),
  dialogs: z.enum(["accept", "dismiss"]).optional().describe("open: answer alert/confirm/prompt dialogs"),
  code: z.string().optional().describe("run: async function body; page, tab, assert, wait(ms), display(v) in scope; its return value comes back"),
  all: z.boolean().optional().describe("close: every tab"),
  kill: z.boolean().optional().describe("close: also end the browser"),
});

type Input = z.infer<typeof schema>;

export interface BrowserDetails {
  action: Input["action"];
  name: string;
  url?: string;
  title?: string;
  browser?: string;
  /** What the egress policy refused the page during the call. */
  refused?: string[];
}

/**
 * Runs the page from the path policy's view: a file:// address is a read of that file, which the
 * policy may refuse (the sandbox also hides denied paths from the browser itself).
 */
function fileRefusal(url: string | undefined, context: Parameters<ToolDefinition["execute"]>[1]): string | undefined {
  if (!url || !/^file:/i.test(url)) return undefined;
  let path: string;
  try {
    path = decodeURIComponent(new URL(url).pathname);
  } catch {
    return `${JSON.stringify(url)} is not a valid file:// URL.`;
  }
  const refused = readRefusal(context, path);
  return refused ? `The browser may not open ${url}: ${refused}` : undefined;
}

export const browserTool: ToolDefinition<typeof schema, BrowserDetails> = {
  ...declared(browserDeclaration),
  schema,
  effectOf: (input) => (input.action === "run" ? "exec" : "network"),
  async execute(input, context): Promise<ToolResult<BrowserDetails>> {
    const name = input.name ?? "main";
    const timeoutMs = Math.min(TIMEOUT.max, Math.max(TIMEOUT.min, input.timeout ?? TIMEOUT.default)) * 1000;
    const details: BrowserDetails = { action: input.action, name };
    if (input.action === "run" && !input.code) return errorResult("Missing required parameter 'code' for action 'run'.", details);
    const refusal = fileRefusal(input.url, context);
    if (refusal) return errorResult(refusal, details);
    const { browserHost, runningBrowser, BrowserFailure } = await import("./browser/host.ts");
    if (input.action === "close") {
      const running = runningBrowser();
      if (!running) return { content: [{ type: "text", text: input.all ? "No tabs were open." : `No tab named "${name}".` }], details };
      if (input.kill) {
        running.stop();
        return { content: [{ type: "text", text: "Closed every tab and ended the browser." }], details };
      }
    }
    let host;
    try {
      host = await browserHost(context);
    } catch (error) {
      if (error instanceof BrowserFailure) return errorResult(error.message, details);
      throw error;
    }
    host.refusals = [];
    let answer;
    try {
      answer = await host.call(
        input.action === "open"
          ? { op: "open", name, timeoutMs, ...(input.url ? { url: input.url } : {}), ...(input.viewport ? { viewport: input.viewport } : {}), ...(input.wait_until ? { waitUntil: input.wait_until } : {}), ...(input.dialogs ? { dialogs: input.dialogs } : {}) }
          : input.action === "run"
            ? { op: "run", name, timeoutMs, code: input.code! }
            : { op: "close", name, timeoutMs, ...(input.all ? { all: true } : {}) },
        context.signal,
      );
    } catch (error) {
      if (error instanceof BrowserFailure) return errorResult(error.message, details);
      throw error;
    }
    const refused = [...new Set(host.refusals)];
    Object.assign(details, { browser: host.version, ...(answer.url ? { url: answer.url } : {}), ...(answer.title ? { title: answer.title } : {}), ...(refused.length > 0 ? { refused } : {}) });
    const notes = refused.length > 0 ? [{ type: "text" as const, text: `Requests the egress policy refused:\n${refused.join("\n")}` }] : [];
    if (answer.error) return { content: [...answer.content, { type: "text", text: answer.error }, ...notes], isError: true, details };
    return { content: [...answer.content, ...notes], details };
  },
};
