import { declared } from "./declare.ts";
import { lsp as lspDeclaration } from "./declarations/lsp.ts";
import { z } from "zod";
import { describeError } from "../errors/omp-error.ts";
import { unifiedDiff } from "./diff.ts";
import { errorResult, textResult } from "./format.ts";
import { displayPath, notFoundMessage, resolveToolPath, readRefusal } from "./paths.ts";
import type { ToolContext, ToolDefinition } from "./types.ts";

const OPS = ["diagnostics", "definition", "references", "hover", "symbols", "workspace_symbols", "rename", "code_actions"] as const;
const MAX_DIFF_CHARS = 20_000;

const schema = z.object({
  op: z.enum(OPS).describe("what to do"),
  path: z.string().optional().describe("file"),
  line: z.int().optional().describe("1-based"),
  symbol: z.string().optional().describe("name on line"),
  col: z.int().optional().describe("if no symbol"),
  query: z.string().optional().describe("symbol name"),
  newName: z.string().optional().describe("rename to"),
  action: z.int().optional().describe("action # to apply"),
  apply: z.boolean().optional().describe("write edits"),
});
type Input = z.infer<typeof schema>;

/** The language server tool; its work is in core/lsp/operations.ts, this file is its contract with the model. */
export const lspTool: ToolDefinition<typeof schema> = {
  ...declared(lspDeclaration),
  schema,
  effectOf: (input) => (input.apply ? "write" : "read"),
  async execute(input, context) {
    if (!context.lsp) return errorResult("lsp is not available here: no session with language servers.");
    const path = input.path === undefined ? undefined : resolveToolPath(context.cwd, input.path);
    const refused = path === undefined ? undefined : readRefusal(context, path);
    if (refused !== undefined) return errorResult(refused);
    if (path !== undefined && !(await Bun.file(path).exists())) return errorResult(notFoundMessage(context.cwd, path));
    if (path === undefined && !["diagnostics", "workspace_symbols"].includes(input.op)) return errorResult(`lsp ${input.op} needs path.`);
    const { ServerDiedError } = await import("../lsp/client.ts");
    try {
      return await run(input, context, path);
    } catch (error) {
      // The server died under this call (killed, crashed): it is restarted, and asked once more.
      if (!(error instanceof ServerDiedError)) return errorResult(`lsp ${input.op}: ${describeError(error)}`);
    }
    try {
      return await run(input, context, path);
    } catch (error) {
      return errorResult(`lsp ${input.op}: ${describeError(error)}`);
    }
  },
};

/** One operation; throws LspError (ServerDiedError when the server died under it). */
async function run(input: Input, context: ToolContext, path: string | undefined) {
  const show = (file: string) => displayPath(context.cwd, file);
  const [operations, manager] = await Promise.all([import("../lsp/operations.ts"), context.lsp!.get()]);
  const target = { path: path!, line: input.line, col: input.col, symbol: input.symbol };
  switch (input.op) {
    case "diagnostics":
      return textResult(await operations.diagnostics(manager, path, show));
    case "definition":
      return textResult(await operations.definition(manager, target, show));
    case "references":
      return textResult(await operations.references(manager, target, show));
    case "hover":
      return textResult(await operations.hover(manager, target));
    case "symbols":
      return textResult(await operations.documentSymbols(manager, path!));
    case "workspace_symbols":
      if (!input.query) return errorResult("lsp workspace_symbols needs query (a name or part of one).");
      return textResult(await operations.workspaceSymbols(manager, input.query, path, show));
    case "rename": {
      if (!input.newName) return errorResult("lsp rename needs newName.");
      const { client, changes } = await operations.rename(manager, target, input.newName);
      return await editResult(changes, input, context, client, `rename to ${input.newName}`);
    }
    case "code_actions": {
      const { client, actions } = await operations.codeActions(manager, target);
      if (actions.length === 0) return textResult("No code actions there.");
      if (input.action === undefined) {
        const list = actions.map((action, i) => `${i + 1}. ${action.title}${"kind" in action && action.kind ? ` [${action.kind}]` : ""}`);
        return textResult(`${list.join("\n")}\nApply one with action: <number> and apply: true (without apply: a preview).`);
      }
      const chosen = actions[input.action - 1];
      if (!chosen) return errorResult(`There are ${actions.length} actions; action must be 1-${actions.length}.`);
      const { planWorkspaceEdit } = await import("../lsp/workspace-edit.ts");
      const changes = planWorkspaceEdit(await operations.codeActionEdit(client, chosen));
      return await editResult(changes, input, context, client, chosen.title);
    }
  }
}

/** The diffs of an edit set; with apply, written through the atomic write path and synced to the server. */
async function editResult(
  changes: import("../lsp/workspace-edit.ts").FileChange[],
  input: Input,
  context: ToolContext,
  client: import("../lsp/client.ts").LspClient,
  what: string,
) {
  const changed = changes.filter((change) => change.after !== change.before);
  if (changed.length === 0) return textResult(`${what}: the server's edit changes nothing.`);
  let diffs = changed.map((change) => unifiedDiff(change.before, change.after, displayPath(context.cwd, change.path)).text).join("\n");
  if (diffs.length > MAX_DIFF_CHARS) diffs = `${diffs.slice(0, MAX_DIFF_CHARS)}\n… [diff cut]`;
  const edits = changed.reduce((sum, change) => sum + change.edits, 0);
  const files = changed.map((change) => displayPath(context.cwd, change.path));
  if (!input.apply) return textResult(`${what}: ${edits} edit(s) in ${files.length} file(s) (preview; nothing written, apply: true writes it):\n${diffs}`, { files, applied: false });
  const { writeToolFiles } = await import("./file-writes.ts");
  await writeToolFiles(context, changed.map((change) => ({ path: change.path, content: change.after })));
  for (const change of changed) await client.sync(change.path, change.after);
  return textResult(`${what}: applied ${edits} edit(s) in ${files.length} file(s): ${files.join(", ")}\n${diffs}`, { files, applied: true });
}
