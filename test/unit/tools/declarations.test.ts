// A tool is declared in one place (core/tools/declarations): the registry, the presentation for
// editors and terminals, the path scope, Claude's names for hooks and permission rules are all read
// from its declaration, so adding a tool is one declaration (and its code) plus its tests. The list of
// built-in tools is the declarations folder itself: a new file there is offered in the place it names.
import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { fromClaude, matchNames, toClaude } from "../../../core/extensions/hooks/claude-tools.ts";
import { ruleMatches, ruleNamesTool } from "../../../core/permissions/rules.ts";
import { needsApproval } from "../../../core/tools/approval.ts";
import { builtinToolDefinitions, definitionsOf, specOf } from "../../../core/tools/builtin-specs.ts";
import { pathAt, type ToolDeclaration } from "../../../core/tools/declare.ts";
import { BUILTIN_TOOLS, DECLARED, declaredIn, OTHER_TOOLS } from "../../../core/tools/declarations/index.ts";
import { DECLARATION_MODULES, declarationModules } from "../../../core/tools/declarations/modules.ts";
import { defineTool } from "../../../core/tools/define.ts";
import { PathScope } from "../../../core/tools/path-scope.ts";
import { presentTool, resultView, terminalArgument, terminalNote } from "../../../core/tools/presentation.ts";
import { builtinTools, offeredTools } from "../../../core/tools/registry.ts";
import { tempDir } from "../../support/temp.ts";

const EVERY_OPTION = { webSearch: true, memory: true, browser: true, github: true, sshHosts: [{ name: "box", source: "ssh.json", host: "devbox" }] };

describe("every declared tool is in every table", () => {
  test("the registry offers each built-in declaration, in its order, and loads the code named like it", async () => {
    expect(builtinTools(EVERY_OPTION).map((tool) => tool.name)).toEqual(BUILTIN_TOOLS.map((declaration) => declaration.name));
    expect(builtinToolDefinitions().map((definition) => definition.name)).toEqual(BUILTIN_TOOLS.map((declaration) => declaration.name));
    for (const tool of builtinTools(EVERY_OPTION)) expect({ tool: tool.name, loaded: (await tool.load()) === (await tool.load()) && (await tool.load()).schema !== undefined }).toEqual({ tool: tool.name, loaded: true });
  });

  test("the order is the one requests were sent in before the list was derived: the prompt cache depends on it", () => {
    expect(BUILTIN_TOOLS.map((declaration) => declaration.name)).toEqual(
      ["read", "write", "edit", "bash", "eval", "grep", "find", "ls", "todo", "job", "web_fetch", "web_search", "browser", "inspect_image", "lsp", "ast_grep", "ast_edit", "ask", "retain", "recall", "reflect", "github", "ssh", "resolve", "checkpoint", "rewind"],
    );
  });

  test("a declaration's offered() is what keeps a tool out: without the options only the always-offered remain", () => {
    const always = BUILTIN_TOOLS.filter((declaration) => !declaration.offered).map((declaration) => declaration.name);
    expect(builtinTools().map((tool) => tool.name)).toEqual(always);
    expect(always).not.toContain("web_search");
  });

  test("names are unique across built-in and other declarations, and no alias shadows a declared name", () => {
    const names = [...BUILTIN_TOOLS, ...OTHER_TOOLS].map((declaration) => declaration.name);
    expect(new Set(names).size).toBe(names.length);
    const aliases = names.flatMap((name) => DECLARED.get(name)!.aliases ?? []);
    expect(aliases.filter((alias) => DECLARED.has(alias))).toEqual([]);
  });

  test.each([...DECLARED.keys()])("%s: its editor row, terminal row, path scope and Claude names are the ones its declaration gives", (name) => {
    const declaration = DECLARED.get(name)!;
    const cwd = "/repo";
    const input = { path: "src/a.ts", command: "ls", pattern: "x", query: "q", url: "https://example.com/", action: "read", input: "*** Begin Patch\n*** Update File: src/a.ts\n*** End Patch" };
    const editor = declaration.editor?.(input, cwd);
    if (editor) expect(presentTool(name, input, cwd)).toMatchObject({ kind: editor.kind, title: editor.title });
    else expect(presentTool(name, input, cwd).kind).toBe("other");
    const argument = declaration.terminal?.argument?.(input);
    expect(terminalArgument(name, input)).toBe(argument ?? JSON.stringify(input));
    expect(resultView(name)).toBe(declaration.terminal?.result ?? "brief");
    const outside = new PathScope(cwd).outside(name, { ...input, path: "/elsewhere/b.ts", cwd: "/elsewhere" });
    expect(outside.length > 0).toBe(declaration.paths !== undefined && declaration.paths({ ...input, path: "/elsewhere/b.ts", cwd: "/elsewhere" }).some((named) => named.path?.startsWith("/elsewhere")));
    const claude = declaration.claude;
    expect(matchNames(name)).toEqual([name, ...(claude?.names ?? [])]);
    for (const claudeName of [...(claude?.names ?? []), ...(claude?.rules ?? [])]) expect(ruleNamesTool(claudeName, name)).toBe(true);
    for (const alias of declaration.aliases ?? []) expect(ruleNamesTool(claude!.names[0]!, alias)).toBe(true);
    // Hooks are sent one of Claude's names (Edit or MultiEdit by the number of edits), or omp's for a tool Claude lacks.
    expect(claude ? claude.names.includes(toClaude(name, { x: 1 }).toolName) : toClaude(name, { x: 1 }).toolName === name).toBe(true);
  });
});

describe("a declaration alone makes a tool presentable, path-checked and Claude-named", () => {
  // What adding a tool takes: this declaration (with its code), nothing in any table.
  const notebook: ToolDeclaration = {
    name: "notebook_edit",
    load: async () => defineTool({ name: "notebook_edit", description: "Edits a notebook cell", effect: "write", schema: z.object({ notebook: z.string(), cell: z.int() }), execute: async () => ({ content: [] }) }) as never,
    editor: (input) => ({ kind: "edit", title: `Edit cell ${String(input.cell)} of ${String(input.notebook)}` }),
    terminal: { argument: (input) => `${String(input.notebook)}#${String(input.cell)}`, note: (d: { changed?: number }) => (d.changed ? `${d.changed} changed` : undefined), result: "diff" },
    paths: pathAt("notebook", "write"),
    claude: { names: ["NotebookEdit"], fields: { notebook: "notebook_path", cell: "cell_number" } },
    aliases: ["notebook"],
  };

  test("presentation, path scope, hooks and permission rules all follow it", () => {
    const declared = DECLARED as Map<string, ToolDeclaration>;
    declared.set(notebook.name, notebook);
    try {
      const root = tempDir("omp-declared-");
      const repo = join(root, "repo");
      mkdirSync(join(repo, ".git"), { recursive: true });
      const input = { notebook: "nb.ipynb", cell: 3 };
      expect(presentTool("notebook_edit", input, repo)).toEqual({ kind: "edit", title: "Edit cell 3 of nb.ipynb", locations: [] });
      expect([terminalArgument("notebook_edit", input), terminalNote("notebook_edit", { changed: 2 }), resultView("notebook_edit")]).toEqual(["nb.ipynb#3", "2 changed", "diff"]);
      const scope = new PathScope(repo);
      expect(scope.outside("notebook_edit", input)).toEqual([]);
      expect(scope.outside("notebook_edit", { notebook: join(root, "other.ipynb"), cell: 1 })).toEqual([join(root, "other.ipynb")]);
      expect(matchNames("notebook_edit")).toEqual(["notebook_edit", "NotebookEdit"]);
      expect(toClaude("notebook_edit", input, repo)).toEqual({ toolName: "NotebookEdit", toolInput: { notebook_path: "nb.ipynb", cell_number: 3 } });
      expect(fromClaude("notebook_edit", { notebook_path: "b.ipynb", cell_number: 1 })).toEqual({ notebook: "b.ipynb", cell: 1 });
      const rule = (text: string) => ({ tool: text.split("(")[0]!, specifier: /\((.*)\)/.exec(text)?.[1], base: repo });
      expect(ruleMatches(rule("NotebookEdit(./secret/**)"), "notebook_edit", { notebook: "secret/x.ipynb" }, repo)).toBe(true);
      expect(ruleMatches(rule("NotebookEdit(./secret/**)"), "notebook_edit", { notebook: "open/x.ipynb" }, repo)).toBe(false);
      expect(ruleNamesTool("NotebookEdit", "notebook")).toBe(true);
    } finally {
      declared.delete(notebook.name);
    }
    expect(presentTool("notebook_edit", { notebook: "nb.ipynb" }, "/repo").kind).toBe("other");
  });
});

describe("what the declarations give Claude's hooks and rules that the old tables missed", () => {
  const rule = (text: string) => ({ tool: text.split("(")[0]!, specifier: /\((.*)\)/.exec(text)?.[1], base: "/repo" });

  test("web_fetch and web_search reach hooks as WebFetch and WebSearch; their other agents' names are covered by the same rules", () => {
    expect(toClaude("web_fetch", { url: "https://example.com/" })).toEqual({ toolName: "WebFetch", toolInput: { url: "https://example.com/" } });
    expect(matchNames("web_search")).toEqual(["web_search", "WebSearch"]);
    expect(ruleNamesTool("WebFetch", "webfetch")).toBe(true);
    expect(ruleNamesTool("web_fetch", "webfetch")).toBe(false);
  });

  test("Edit rules cover apply_patch, by the files its patch names", () => {
    const patch = { input: "*** Begin Patch\n*** Update File: secret/a.ts\n@@\n-a\n+b\n*** End Patch" };
    expect(ruleMatches(rule("Edit(./secret/**)"), "apply_patch", patch, "/repo")).toBe(true);
    expect(ruleMatches(rule("Edit(./open/**)"), "apply_patch", patch, "/repo")).toBe(false);
  });

  test("a path rule sees both files of an edit that renames", () => {
    expect(ruleMatches(rule("Edit(./secret/**)"), "edit", { path: "open/a.ts", rename: "secret/a.ts" }, "/repo")).toBe(true);
  });
});

describe("a declaration file alone adds a built-in tool", () => {
  const ROOT = join(import.meta.dir, "..", "..", "..");
  const zod = Bun.resolveSync("zod", ROOT);

  /** A folder of declarations holding notebook_edit (after edit) and notebook_view (deferred, after ls), and their code beside it. */
  function addedTools(): { folder: string; modules: Record<string, unknown>[] } {
    const root = tempDir("omp-declarations-");
    const folder = join(root, "declarations");
    mkdirSync(folder);
    writeFileSync(
      join(folder, "notebook.ts"),
      [
        `export const notebookEdit = { name: "notebook_edit", order: 35, description: "Edit one cell of a Jupyter notebook.", effect: "write", load: () => import("../notebook.ts").then((module) => module.editTool) };`,
        `export const notebookView = { name: "notebook_view", order: 85, description: "Show a notebook's cells.", effect: "read", loadMode: "discoverable", offered: (options) => options.memory !== true, load: () => import("../notebook.ts").then((module) => module.viewTool) };`,
      ].join("\n"),
    );
    writeFileSync(
      join(root, "notebook.ts"),
      [
        `import { z } from ${JSON.stringify(zod)};`,
        `import { declared } from ${JSON.stringify(join(ROOT, "core", "tools", "declare.ts"))};`,
        `import { notebookEdit, notebookView } from "./declarations/notebook.ts";`,
        `const run = async () => ({ content: [] });`,
        `export const editTool = { ...declared(notebookEdit), schema: z.object({ notebook: z.string(), cell: z.int() }), execute: run };`,
        `export const viewTool = { ...declared(notebookView), schema: z.object({ notebook: z.string() }), execute: run };`,
      ].join("\n"),
    );
    return { folder, modules: [...DECLARATION_MODULES, ...declarationModules(folder)] };
  }

  test("found in its folder, offered in the place its order names, described and effect-gated as it says", async () => {
    const { modules } = addedTools();
    const { builtin, byName } = declaredIn(modules);
    const names = BUILTIN_TOOLS.map((declaration) => declaration.name);
    const expected = [...names.slice(0, names.indexOf("edit") + 1), "notebook_edit", ...names.slice(names.indexOf("edit") + 1)];
    expected.splice(expected.indexOf("ls") + 1, 0, "notebook_view");
    expect(builtin.map((declaration) => declaration.name)).toEqual(expected);

    // What the build makes of the built-in tools (their JSON Schemas from the code), then what a session is offered.
    const specs = (await definitionsOf(builtin)).map(specOf);
    const offered = offeredTools(specs, {}, (name) => byName.get(name));
    const always = builtinTools().map((tool) => tool.name);
    expect(offered.map((tool) => tool.name)).toEqual(expected.filter((name) => always.includes(name) || name.startsWith("notebook_")));
    const edit = offered.find((tool) => tool.name === "notebook_edit")!;
    const view = offered.find((tool) => tool.name === "notebook_view")!;
    expect([edit, view].map(({ description, effect, loadMode, parameters }) => ({ description, effect, loadMode, required: parameters.required }))).toEqual([
      { description: "Edit one cell of a Jupyter notebook.", effect: "write", loadMode: undefined, required: ["notebook", "cell"] },
      { description: "Show a notebook's cells.", effect: "read", loadMode: "discoverable", required: ["notebook"] },
    ]);
    // The approval gate reads the effect: under `write`, the writing tool asks and the reading one does not.
    expect([needsApproval(edit, "write"), needsApproval(view, "write")]).toEqual([true, false]);
    // Its offered() is read too.
    expect(offeredTools(specs, { memory: true }, (name) => byName.get(name)).map((tool) => tool.name)).not.toContain("notebook_view");
    expect((await edit.load()).schema).toBeDefined();
  });

  test("one file is enough: a declaration whose load builds the tool (zod imported on the first call) is found, specified and runs", async () => {
    const folder = join(tempDir("omp-one-file-"), "declarations");
    mkdirSync(folder);
    writeFileSync(
      join(folder, "word-count.ts"),
      [
        `import { declared } from ${JSON.stringify(join(ROOT, "core", "tools", "declare.ts"))};`,
        `export const wordCount = {`,
        `  name: "word_count", order: 85, description: "Count the words of a text.", effect: "read",`,
        `  load: async () => {`,
        `    const { z } = await import(${JSON.stringify(zod)});`,
        `    return { ...declared(wordCount), schema: z.object({ text: z.string() }), execute: async (input) => ({ content: [{ type: "text", text: String(input.text.split(/\\s+/).filter(Boolean).length) }] }) };`,
        `  },`,
        `};`,
      ].join("\n"),
    );
    const { builtin } = declaredIn([...DECLARATION_MODULES, ...declarationModules(folder)]);
    const names = builtin.map((declaration) => declaration.name);
    expect(names.indexOf("word_count")).toBe(names.indexOf("ls") + 1);
    const tool = (await definitionsOf(builtin)).find((definition) => definition.name === "word_count")!;
    const spec = specOf(tool);
    expect({ description: spec.description, effect: spec.effect, required: spec.parameters.required }).toEqual({ description: "Count the words of a text.", effect: "read", required: ["text"] });
    expect(await tool.execute(tool.schema.parse({ text: "one two  three" }), {} as never)).toEqual({ content: [{ type: "text", text: "3" }] });
  });

  test("a name declared twice, or two tools in one place, fail at load naming both", () => {
    const { modules } = addedTools();
    const added = modules.at(-1)!;
    expect(() => declaredIn([...modules, added])).toThrow("Tool notebook_edit is declared twice");
    expect(() => declaredIn([...modules, { clash: { ...(added.notebookEdit as object), name: "notebook_fork" } }])).toThrow("Tools notebook_edit and notebook_fork both have order 35");
  });
});
