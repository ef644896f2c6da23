import { realpathSync } from "node:fs";
import { join } from "node:path";
import type { ImageContent } from "../../../core/ai/messages.ts";
import type { ToolContext, ToolResult } from "../../../core/tools/types.ts";
import { tempDir } from "../../support/temp.ts";

/** A fresh directory; realpath so paths compare equal on systems where tmp is a symlink. */
export function scratch(): string {
  return realpathSync(tempDir("omp-tools-"));
}

export function context(cwd: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return { cwd, signal: new AbortController().signal, artifactsDir: join(cwd, ".artifacts"), ...overrides };
}

/** The text blocks of a result, joined. */
export function textOf(result: ToolResult): string {
  return result.content
    .filter((c) => c.type === "text")
    .map((c) => (c as { text: string }).text)
    .join("\n");
}

export function imageOf(result: ToolResult): ImageContent | undefined {
  return result.content.find((c): c is ImageContent => c.type === "image");
}
