// Diagnostics asked of the real typescript-language-server (tsserver's *DiagnosticsSync through
// typescript.tsserverRequest) rather than waited for: the answer for the new text, in the very
// form the server publishes later, so before/after comparisons across the two hold.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Diagnostic } from "vscode-languageserver-protocol";
import { LspManager } from "../../../core/lsp/manager.ts";
import { canPullDiagnostics } from "../../../core/lsp/pull-diagnostics.ts";
import { tempDir } from "../../support/temp.ts";

setDefaultTimeout(120_000);
const BIN = resolve(import.meta.dir, "../../../node_modules/.bin");
const env = { ...process.env, PATH: `${BIN}:${process.env.PATH}` };
const SETTINGS = { enabled: true, diagnosticsOnWrite: true, formatOnWrite: false, servers: {} };
const managers: LspManager[] = [];
afterAll(async () => {
  await Promise.all(managers.map((manager) => manager.stop()));
});

function project(files: Record<string, string>): string {
  const root = tempDir("omp-lsp-pull-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, ".."), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  const manager = new LspManager(root, SETTINGS, env);
  managers.push(manager);
  return root;
}

const problems = (list: Diagnostic[]) => list.filter((d) => (d.severity ?? 1) <= 2).map(({ range, severity, code, source, message }) => ({ range, severity, code, source, message }));

describe("diagnostics on request", () => {
  test("typescript-language-server answers the new text's errors at once, as it publishes them after its debounce", async () => {
    const root = project({
      "package.json": '{ "name": "demo", "private": true }\n',
      "tsconfig.json": '{ "compilerOptions": { "strict": true, "noEmit": true }, "include": ["src"] }\n',
      "src/a.ts": "export const n: number = 1;\n",
    });
    const manager = managers.at(-1)!;
    const path = join(root, "src", "a.ts");
    const clean = await manager.diagnose(path, "export const n: number = 1;\n");
    expect(canPullDiagnostics(clean.client)).toBe(true);
    expect(problems(clean.after!)).toEqual([]);

    const broken = "export const n: number = 1;\nexport const s: string = n;\nexport const x = ;\n";
    const result = await manager.diagnose(path, broken);
    const pulled = problems(result.after!);
    expect(pulled.map((d) => [d.code, d.range.start.line + 1, d.range.start.character + 1])).toEqual([
      [1109, 3, 18],
      [2322, 2, 14],
    ]);
    expect(pulled[1]!.message).toBe("Type 'number' is not assignable to type 'string'.");
    const recorded = result.client.diagnosticsOf(path)!;
    expect(recorded.diagnostics).toBe(result.after!);

    // The server's own publication for this text, when its debounce ends: the same problems.
    const published = await result.client.waitForDiagnostics(path, recorded.seq, 0, 10_000, 250);
    expect(published).toBeDefined();
    expect(problems(published!).sort((x, y) => x.range.start.line - y.range.start.line)).toEqual([...pulled].sort((x, y) => x.range.start.line - y.range.start.line));
  });

  test("a server without the request (pyright) is waited for as before", async () => {
    const root = project({ "pyproject.toml": "[project]\nname = 'demo'\n", "app.py": "x: int = 1\n" });
    const manager = managers.at(-1)!;
    const result = await manager.diagnose(join(root, "app.py"), 'x: int = "one"\n');
    expect(canPullDiagnostics(result.client)).toBe(false);
    expect(problems(result.after!).map((d) => d.range.start.line)).toEqual([0]);
  });
});
