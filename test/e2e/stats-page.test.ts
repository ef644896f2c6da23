// `omp stats --html`: the page is loaded in headless Chromium (Debian's), its script draws the
// charts, and the values drawn are read back from the DOM and held against `omp stats --json`.
import { describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, runAgent, workspace } from "../support/agent-harness.ts";
import { runOmp, tempDir } from "../support/omp.ts";

const standin = await agentTestFile();
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: `omptest_ant_${crypto.randomUUID().replaceAll("-", "")}`, OMP_NO_BROWSER: "1" });

/** The DOM after the page's scripts ran. */
function renderedDom(file: string): string {
  const chromium = ["chromium", "chromium-browser"].find((name) => spawnSync("sh", ["-c", `command -v ${name}`]).status === 0);
  if (!chromium) throw new Error("Chromium is not installed: .ci/setup installs Debian's chromium");
  const result = spawnSync(chromium, ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=" + tempDir(), "--dump-dom", `file://${file}`], { encoding: "utf8", timeout: 90_000 });
  expect(result.stdout).toContain('data-drawn="true"');
  return result.stdout;
}

/** Every drawn mark's value by its data-key. */
function drawnValues(dom: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const match of dom.matchAll(/<(?:rect|div)[^>]*?data-key="([^"]+)"[^>]*?data-value="([^"]+)"/g)) values.set(match[1]!.replaceAll("&amp;", "&"), Number(match[2]));
  return values;
}

describe("omp stats --html", () => {
  test("Chromium draws the same numbers omp stats --json gives: totals, days, models, projects, tools, errors, cache hits", async () => {
    const home = tempDir();
    const a = workspace();
    const b = workspace();
    standin.setScript([
      { toolCalls: [{ name: "bash", arguments: { command: "echo hi" } }], usage: { input: 100, output: 20, cacheRead: 300 } },
      { text: "done", usage: { input: 50, output: 10, cacheRead: 400 } },
    ]);
    expect((await runAgent(["-p", "--model", "anthropic/claude-opus-5-5", "go"], { home, cwd: a.repo, env: env() })).code).toBe(0);
    standin.setScript([{ text: "second project", usage: { input: 40, output: 5 } }]);
    expect((await runAgent(["-p", "--model", "anthropic/claude-sonnet-5-5", "hello"], { home, cwd: b.repo, env: env() })).code).toBe(0);
    standin.setScript([{ status: 400, message: "this request is refused" }]);
    expect((await runAgent(["-p", "--model", "anthropic/claude-sonnet-5-5", "fail"], { home, cwd: b.repo, env: env() })).code).not.toBe(0);

    const json = await runOmp(["stats", "--json"], { home });
    expect(json.code).toBe(0);
    const stats = JSON.parse(json.stdout);
    const out = join(tempDir(), "stats.html");
    const written = await runOmp(["stats", "--html", out], { home, env: { OMP_NO_BROWSER: "1" } });
    expect(written.code).toBe(0);
    expect(written.stdout.trim()).toBe(out);
    expect(existsSync(out)).toBe(true);
    // Self-contained: nothing the page would fetch.
    expect(readFileSync(out, "utf8")).not.toMatch(/(src|href)=["']?(https?:)?\/\//);

    const drawn = drawnValues(renderedDom(out));
    const t = stats.total;
    expect(t.requests).toBeGreaterThanOrEqual(3);
    expect(t.errors).toBeGreaterThanOrEqual(1);
    expect(t.cacheRead).toBe(700);
    expect(drawn.get("requests")).toBe(t.requests);
    expect(drawn.get("tokens in")).toBe(t.input);
    expect(drawn.get("tokens out")).toBe(t.output);
    expect(drawn.get("cost")).toBeCloseTo(t.cost, 9);
    expect(drawn.get("tool calls")).toBe(1);
    expect(drawn.get("errors")).toBe(t.errors);
    expect(drawn.get("cache hit rate")).toBeCloseTo(700 / t.input, 9);
    expect(drawn.get("sessions")).toBe(stats.sessions + stats.subagentSessions);
    for (const [day, totals] of Object.entries<any>(stats.byDay)) {
      expect(drawn.get(`tokens-by-day:input:${day}`)).toBe(totals.input);
      expect(drawn.get(`tokens-by-day:output:${day}`)).toBe(totals.output);
      expect(drawn.get(`cost-by-day:cost:${day}`)).toBeCloseTo(totals.cost, 9);
      expect(drawn.get(`requests-by-day:requests:${day}`)).toBe(totals.requests);
      expect(drawn.get(`requests-by-day:errors:${day}`)).toBe(totals.errors);
    }
    expect(Object.keys(stats.byProject).sort()).toEqual([a.repo, b.repo].sort());
    for (const [cwd, project] of Object.entries<any>(stats.byProject)) expect(drawn.get(`projects:${cwd}`)).toBe(project.sessions);
    expect(drawn.get("tools:bash")).toBe(stats.tools.bash);
    expect(Object.keys(stats.byModel).sort()).toEqual(["anthropic/claude-opus-5-5", "anthropic/claude-sonnet-5-5"]);
  });

  test("with no sessions the page still draws, saying there is nothing yet", async () => {
    const out = join(tempDir(), "empty.html");
    expect((await runOmp(["stats", "--html", out], { home: tempDir(), env: { OMP_NO_BROWSER: "1" } })).code).toBe(0);
    const dom = renderedDom(out);
    expect(dom).toContain("No requests in this period.");
    expect(drawnValues(dom).get("requests")).toBe(0);
  });
});
