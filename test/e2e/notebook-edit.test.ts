// Notebook cell edits on dist/omp (issue 41 item 2): the model edits and writes a .ipynb in the
// cell form read shows it (the original omp's `# %% [code] cell:N`), through the ordinary edit and
// write tools; cells are inserted, changed and deleted while the others keep their ids, metadata and
// outputs, and the file is a valid nbformat 4.5 notebook that Jupyter itself executes.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, providerCases, readJsonl, runAgent, sessionFiles, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { RpcProcess } from "../support/agent-rpc.ts";

const standin = await agentTestFile();
const provider = providerCases()[0]!;

const NOTEBOOK = {
  cells: [
    { cell_type: "markdown", id: "intro", metadata: { tags: ["keep-me"] }, source: ["# Intro\n", "Some words."] },
    { cell_type: "code", execution_count: 1, id: "load", metadata: { collapsed: false }, outputs: [{ name: "stdout", output_type: "stream", text: ["1\n"] }], source: ["x = 1\n", "print(x)"] },
    { cell_type: "raw", id: "scratch", metadata: {}, source: ["scratch notes"] },
  ],
  metadata: { kernelspec: { display_name: "Python 3", language: "python", name: "python3" }, language_info: { name: "python" } },
  nbformat: 4,
  nbformat_minor: 5,
};

/** Jupyter's own interpreter (the one its launcher runs), which has nbformat. */
function jupyterPython(): string {
  const launcher = Bun.which("jupyter");
  if (!launcher) throw new Error("jupyter is not installed (.ci/setup installs jupyter-nbconvert and python3-ipykernel)");
  return readFileSync(launcher, "utf8").split("\n")[0]!.replace(/^#!\s*/, "").trim();
}

describe("notebook cell edits", () => {
  test("edit inserts, changes and deletes cells in read's cell form; the rest keep ids, metadata and outputs; Jupyter runs the file", async () => {
    const ws = workspace({ "analysis.ipynb": `${JSON.stringify(NOTEBOOK, null, 1)}\n` });
    standin.requests.length = 0;
    standin.setScript([
      { toolCalls: [{ id: "r", name: "read", arguments: { path: "analysis.ipynb" } }] },
      // Insert a cell after cell 1, as a new marker without a number.
      { toolCalls: [{ id: "insert", name: "edit", arguments: { path: "analysis.ipynb", edits: [{ oldText: "print(x)", newText: "print(x)\n\n# %% [code]\ny = x * 2\nprint('y is', y)" }] } }] },
      { toolCalls: [{ id: "change", name: "edit", arguments: { path: "analysis.ipynb", edits: [{ oldText: "# Intro", newText: "# Analysis" }] } }] },
      { toolCalls: [{ id: "delete", name: "edit", arguments: { path: "analysis.ipynb", edits: [{ oldText: "\n\n# %% [raw] cell:3\nscratch notes", newText: "" }] } }] },
      { toolCalls: [{ id: "bad", name: "write", arguments: { path: "other.ipynb", content: "# %% [code]\nprint('fresh')\n\n# %% [markdown]\nA *new* notebook" } }] },
      { text: "done" },
    ]);
    const run = await runAgent(["-p", "--model", provider.model, "go"], { home: ws.home, cwd: ws.repo, env: provider.env(standin.url) });
    expect(run.code).toBe(0);
    const results = toolResultsOf(provider.api, modelRequests(standin).at(-1)!.body);
    const byId = Object.fromEntries(results.map((r) => [r.id, r]));
    expect(byId.r!.text).toContain("5\t# %% [code] cell:1\n6\tx = 1\n7\tprint(x)\n8\t# >>> output\n9\t1\n");
    expect(byId.insert!.isError).toBeFalsy();
    // The diff is shown in the cell form, as the approval shows it.
    expect(byId.insert!.text).toContain("+# %% [code]\n+y = x * 2");
    expect(byId.delete!.isError).toBeFalsy();

    const notebook = JSON.parse(readFileSync(join(ws.repo, "analysis.ipynb"), "utf8"));
    expect(notebook.nbformat_minor).toBe(5);
    expect(notebook.cells.map((cell: any) => cell.cell_type)).toEqual(["markdown", "code", "code"]);
    const [intro, load, added] = notebook.cells;
    expect(intro).toEqual({ cell_type: "markdown", id: "intro", metadata: { tags: ["keep-me"] }, source: ["# Analysis\n", "Some words."] });
    expect(load).toEqual(NOTEBOOK.cells[1]);
    expect(added).toMatchObject({ cell_type: "code", execution_count: null, metadata: {}, outputs: [], source: ["y = x * 2\n", "print('y is', y)"] });
    expect(added.id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
    expect(added.id).not.toBe("load");

    const fresh = JSON.parse(readFileSync(join(ws.repo, "other.ipynb"), "utf8"));
    expect(fresh.nbformat).toBe(4);
    expect(fresh.cells.map((cell: any) => [cell.cell_type, cell.source.join("")])).toEqual([["code", "print('fresh')"], ["markdown", "A *new* notebook"]]);

    // Valid nbformat, and Jupyter executes every cell without error.
    const python = jupyterPython();
    for (const file of ["analysis.ipynb", "other.ipynb"]) {
      const valid = Bun.spawnSync([python, "-c", "import nbformat, sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4))", file], { cwd: ws.repo, stderr: "pipe" });
      expect({ file, code: valid.exitCode, stderr: valid.stderr.toString() }).toEqual({ file, code: 0, stderr: "" });
    }
    const executed = Bun.spawn(["jupyter", "nbconvert", "--to", "notebook", "--execute", "analysis.ipynb", "--output", "executed.ipynb"], { cwd: ws.repo, stdout: "pipe", stderr: "pipe", env: { ...process.env, HOME: ws.home } });
    const [stderr, code] = await Promise.all([new Response(executed.stderr).text(), executed.exited]);
    expect({ code, stderr: code === 0 ? "" : stderr }).toEqual({ code: 0, stderr: "" });
    const out = JSON.parse(readFileSync(join(ws.repo, "executed.ipynb"), "utf8"));
    expect(out.cells[2].outputs[0].text.join("")).toBe("y is 2\n");
  }, 180_000);

  test("the approval shows the cell-form diff; rewind puts the notebook back byte for byte", async () => {
    const original = `${JSON.stringify(NOTEBOOK, null, 1)}\n`;
    const ws = workspace({ "analysis.ipynb": original });
    standin.setScript([
      { toolCalls: [{ id: "insert", name: "edit", arguments: { path: "analysis.ipynb", edits: [{ oldText: "print(x)", newText: "print(x)\n\n# %% [code]\nz = 3" }] } }] },
      { text: "inserted" },
    ]);
    const rpc = new RpcProcess(["--model", provider.model, "--approval-mode", "write"], { home: ws.home, cwd: ws.repo, env: provider.env(standin.url) });
    try {
      await rpc.waitFrame((f) => f.type === "ready");
      const mark = rpc.mark;
      expect((await rpc.send({ type: "prompt", message: "add a cell" })).success).toBe(true);
      const asked = await rpc.waitFrame((f) => f.type === "extension_ui_request", mark);
      expect(JSON.stringify(asked)).toContain("+# %% [code]\\n+z = 3");
      rpc.writeLine(JSON.stringify({ type: "extension_ui_response", id: asked.id, value: "Allow" }));
      await rpc.waitFrame((f) => f.type === "agent_end", mark);
      const edited = JSON.parse(readFileSync(join(ws.repo, "analysis.ipynb"), "utf8"));
      expect(edited.cells).toHaveLength(4);
      expect(edited.cells[2].source).toEqual(["z = 3"]);
      const entries = readJsonl(sessionFiles(ws.home)[0]!);
      const prompt = entries.find((e) => e.type === "message" && e.message.role === "user")!;
      const rewound = await rpc.send({ type: "rewind", entryId: prompt.id, scope: "files" });
      expect(rewound.success).toBe(true);
      expect(readFileSync(join(ws.repo, "analysis.ipynb"), "utf8")).toBe(original);
      expect(await rpc.close()).toBe(0);
    } finally {
      rpc.child.kill();
    }
  });
});
