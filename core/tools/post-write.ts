import type { ToolContext } from "./types.ts";

/**
 * The one step write and edit (and the lsp tool's rename) take after a file is written: the
 * language server's diagnostics of the change (core/lsp/after-write.ts). Returns text to append to
 * the result; "" without a session's language servers. Loaded only when a session has them.
 */
export async function afterFileWrite(context: ToolContext, path: string, content: string | (() => string), shownPath: string): Promise<string> {
  const lsp = context.lsp;
  if (!lsp?.settings.enabled || (!lsp.settings.diagnosticsOnWrite && !lsp.settings.formatOnWrite)) return "";
  const [{ afterWrite }, { writeToolFiles }, manager] = await Promise.all([import("../lsp/after-write.ts"), import("./file-writes.ts"), lsp.get()]);
  // A caller that did not keep the text reads it back only when a server will look at it. The
  // formatted text goes to the file this call was just allowed to write, so it is not judged again.
  return (await afterWrite(manager, path, typeof content === "function" ? content() : content, shownPath, (file, text) => writeToolFiles({ ...context, paths: undefined }, [{ path: file, content: text }]))).note;
}
