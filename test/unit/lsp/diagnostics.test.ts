import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { loadLspServers, workspaceRoot } from "../../../core/lsp/config.ts";
import { changedLines, formatDiagnostic, introduced } from "../../../core/lsp/diagnostics.ts";
import { applyTextEdits } from "../../../core/lsp/text-edits.ts";
import { tempDir } from "../../support/temp.ts";

const diag = (line: number, message: string, severity = 1, code?: number): Diagnostic => ({
  range: { start: { line, character: 2 }, end: { line, character: 8 } },
  message,
  severity: severity as Diagnostic["severity"],
  ...(code === undefined ? {} : { code, source: "typescript" }),
});

describe("what a change introduced", () => {
  test("an old error that only moved is not new; a second copy of it is; hints never count", () => {
    const before = [diag(3, "Type 'string' is not assignable to type 'number'.")];
    const after = [diag(5, "Type 'string' is not assignable to type 'number'."), diag(9, "Type 'string' is not assignable to type 'number'."), diag(1, "unused", 4)];
    expect(introduced(before, after).map((d) => d.range.start.line)).toEqual([9]);
  });

  test("an old error on a changed line counts as touched", () => {
    const before = [diag(3, "Cannot find name 'x'.")];
    const after = [diag(3, "Cannot find name 'x'.")];
    expect(introduced(before, after, { from: 3, to: 3 })).toHaveLength(1);
    expect(introduced(before, after, { from: 5, to: 6 })).toHaveLength(0);
  });

  test("without a before (the server had not seen the file) every error and warning counts", () => {
    expect(introduced(undefined, [diag(0, "a"), diag(1, "b", 2), diag(2, "c", 3)])).toHaveLength(2);
  });

  test("changedLines finds the edited span by common prefix and suffix", () => {
    expect(changedLines("a\nb\nc\nd\n", "a\nB\nC\nd\n")).toEqual({ from: 1, to: 2 });
    expect(changedLines("a\nb\n", "a\nb\nnew\n")).toEqual({ from: 2, to: 2 });
  });

  test("a diagnostic reads path:line:col severity TScode: message, 1-based", () => {
    expect(formatDiagnostic("src/a.ts", diag(3, "Bad\n  thing.", 1, 2322))).toBe("src/a.ts:4:3 error TS2322: Bad thing.");
  });
});

describe("text edits", () => {
  test("edits against the original text apply last first, in UTF-16 columns", () => {
    const text = "const é = old;\nold();\n";
    const edits = [
      { range: { start: { line: 0, character: 10 }, end: { line: 0, character: 13 } }, newText: "renamed" },
      { range: { start: { line: 1, character: 0 }, end: { line: 1, character: 3 } }, newText: "renamed" },
    ];
    expect(applyTextEdits(text, edits)).toBe("const é = renamed;\nrenamed();\n");
  });
});

describe("server configuration", () => {
  test("a project's .lsp.json counts only when the folder is trusted; settings override built-ins field by field", () => {
    const project = tempDir("omp-lsp-config-");
    const agent = tempDir("omp-lsp-agent-");
    writeFileSync(join(project, ".lsp.json"), JSON.stringify({ servers: { mine: { command: "my-ls", fileTypes: ["xyz"] } } }));
    const env = { ...process.env, OMP_AGENT_DIR: agent };
    const untrusted = loadLspServers(project, { gopls: { args: ["serve", "-rpc.trace"] } }, env);
    expect(untrusted.servers.map((s) => s.name)).not.toContain("mine");
    expect(untrusted.skipped).toHaveLength(1);
    const gopls = untrusted.servers.find((s) => s.name === "gopls")!;
    expect(gopls).toEqual(expect.objectContaining({ command: "gopls", args: ["serve", "-rpc.trace"], fileTypes: [".go"], source: "settings lsp.servers" }));
    writeFileSync(join(agent, "trusted-folders.json"), JSON.stringify({ version: 1, folders: { [project]: { trusted: true, at: "" } } }));
    const trusted = loadLspServers(project, {}, env);
    expect(trusted.servers.find((s) => s.name === "mine")).toEqual(expect.objectContaining({ command: "my-ls", fileTypes: [".xyz"] }));
  });

  test("Claude plugins' extensionToLanguage gives file types and language ids; a server without a command is reported", () => {
    const project = tempDir("omp-lsp-claude-");
    const env = { ...process.env, OMP_AGENT_DIR: tempDir("omp-lsp-agent-") };
    const { servers, warnings } = loadLspServers(project, { go: { command: "gopls", args: ["serve"], extensionToLanguage: { ".go": "go" } }, broken: { fileTypes: [".b"] } }, env);
    expect(servers.find((s) => s.name === "go")).toEqual(expect.objectContaining({ fileTypes: [".go"], languages: { ".go": "go" } }));
    expect(warnings).toContain("server broken (settings lsp.servers) has no command");
  });

  test("the workspace root is the nearest folder with a root marker, within the session's folder; none without a marker", () => {
    const cwd = tempDir("omp-lsp-root-");
    mkdirSync(join(cwd, "pkg", "src"), { recursive: true });
    writeFileSync(join(cwd, "pkg", "tsconfig.json"), "{}");
    const server = loadLspServers(cwd, {}).servers.find((s) => s.name === "typescript-language-server")!;
    expect(workspaceRoot(server, join(cwd, "pkg", "src", "a.ts"), cwd)).toBe(join(cwd, "pkg"));
    expect(workspaceRoot(server, join(cwd, "b.ts"), cwd)).toBeUndefined();
  });
});
