import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSettings } from "../../../core/config/settings.ts";
import { scratchDir } from "./scratch.ts";
import { errorOf, warningsOf } from "../../support/omp-error.ts";

function setup(files: { global?: string; project?: string; extra?: Record<string, string> } = {}) {
  const root = scratchDir("omp-settings-");
  const agent = join(root, "agent");
  const cwd = join(root, "project");
  mkdirSync(agent, { recursive: true });
  mkdirSync(join(cwd, ".omp"), { recursive: true });
  if (files.global !== undefined) writeFileSync(join(agent, "config.yml"), files.global);
  if (files.project !== undefined) writeFileSync(join(cwd, ".omp", "config.yml"), files.project);
  for (const [name, text] of Object.entries(files.extra ?? {})) writeFileSync(join(cwd, name), text);
  return { root, agent, cwd, env: { OMP_AGENT_DIR: agent } };
}

describe("precedence", () => {
  test("defaults apply when no file exists", () => {
    const { cwd, env } = setup();
    const { settings, layers } = loadSettings({ cwd, env });
    expect(layers).toEqual([]);
    expect(settings.approvalMode).toBe("yolo");
    expect(settings.thinking).toBe("medium");
    expect(settings.compaction).toEqual({ enabled: true, reserveTokens: 16384, keepRecentTokens: 20000, thresholdPercent: -1 });
    expect(settings.model).toBeUndefined();
  });

  test("defaults ← global ← project ← overlays ← runtime, objects deep-merged, arrays replaced", () => {
    const { cwd, env } = setup({
      global: "model: global/model\nthinking: high\ntools:\n  disabled: [bash, edit]\ncompaction:\n  enabled: false\n  reserveTokens: 1000\n",
      project: "thinking: low\ntools:\n  disabled: [write]\ncompaction:\n  keepRecentTokens: 5\n",
      extra: { "a.yml": "thinking: minimal\nbash:\n  timeoutSeconds: 10\n", "b.yml": "bash:\n  timeoutSeconds: 20\n" },
    });
    const loaded = loadSettings({ cwd, env, overlays: ["a.yml", "b.yml"], runtime: { approvalMode: "write" } });
    const { settings } = loaded;
    expect(settings.model).toBe("global/model");
    expect(settings.thinking).toBe("minimal");
    expect(settings.tools.disabled).toEqual(["write"]);
    // compaction.enabled and reserveTokens survive from global; keepRecentTokens comes from the project.
    expect(settings.compaction).toEqual({ enabled: false, reserveTokens: 1000, keepRecentTokens: 5, thresholdPercent: -1 });
    expect(settings.bash.timeoutSeconds).toBe(20);
    expect(settings.approvalMode).toBe("write");

    expect(loaded.layers.map((layer) => layer.kind)).toEqual(["global", "project", "overlay", "overlay", "runtime"]);
    expect(loaded.sourceOf("model")?.kind).toBe("global");
    expect(loaded.sourceOf("tools.disabled")?.kind).toBe("project");
    expect(loaded.sourceOf("compaction.enabled")?.kind).toBe("global");
    expect(loaded.sourceOf("bash.timeoutSeconds")?.path).toBe(join(cwd, "b.yml"));
    expect(loaded.sourceOf("approvalMode")?.kind).toBe("runtime");
    expect(loaded.sourceOf("update.channel")).toBeUndefined();
  });

  test("an empty file and a key with an empty value count as unset", () => {
    const { cwd, env } = setup({ global: "", project: "# nothing yet\ntools:\n  # disabled: [bash]\nmodel:\n" });
    const { settings } = loadSettings({ cwd, env });
    expect(settings.tools.disabled).toEqual([]);
    expect(settings.model).toBeUndefined();
  });
});

describe("a settings file omp cannot take whole is read as far as it can be, each problem said with the file, the key and the fix", () => {
  const unset = (key: string) => ` (ignored; \`omp config unset ${key}\` removes it)`;

  test("enum value", () => {
    const { agent, cwd, env } = setup({ global: "approvalMode: sometimes\nthinking: low\n" });
    let settings: ReturnType<typeof loadSettings>["settings"] | undefined;
    const warnings = warningsOf(() => (settings = loadSettings({ cwd, env }).settings));
    expect(warnings).toEqual([`${join(agent, "config.yml")}: approvalMode: got "sometimes", expected one of always-ask, write, yolo${unset("approvalMode")}`]);
    // The rest of the file applies; the refused key has its default.
    expect(settings!.thinking).toBe("low");
    expect(settings!.approvalMode).toBe("yolo");
  });

  test("wrong type, nested key", () => {
    const { cwd, env } = setup({ project: "compaction:\n  enabled: maybe\n" });
    const warnings = warningsOf(() => loadSettings({ cwd, env, trusted: true }));
    expect(warnings).toEqual([`${join(cwd, ".omp", "config.yml")}: compaction.enabled: got "maybe", expected true or false (ignored; \`omp config unset --project compaction.enabled\` removes it)`]);
  });

  test("a list where a mapping belongs, and a number out of range", () => {
    const { agent, cwd, env } = setup({ global: "tools: [bash]\nbash:\n  timeoutSeconds: 99999\n" });
    const warnings = warningsOf(() => loadSettings({ cwd, env }));
    const file = join(agent, "config.yml");
    expect(warnings).toContain(`${file}: tools: got a list, expected a mapping${unset("tools")}`);
    expect(warnings).toContain(`${file}: bash.timeoutSeconds: got 99999, expected a number ≤ 3600${unset("bash.timeoutSeconds")}`);
  });

  test("a whole number is required", () => {
    const { agent, cwd, env } = setup({ global: "retry:\n  maxRetries: 2.5\n" });
    expect(warningsOf(() => loadSettings({ cwd, env }))).toEqual([`${join(agent, "config.yml")}: retry.maxRetries: got 2.5, expected a whole number${unset("retry.maxRetries")}`]);
  });

  test("unknown keys (a typo, the original omp's) are said with a suggestion and the allowed keys", () => {
    const { agent, cwd, env } = setup({ global: "tools:\n  disabeld: [bash]\napprovalmode: yolo\nmodel: a/b\n" });
    let model: string | undefined;
    const warnings = warningsOf(() => (model = loadSettings({ cwd, env }).settings.model));
    const file = join(agent, "config.yml");
    // Several are one line (the original omp's file has dozens), each with its likely meaning.
    expect(warnings).toEqual([
      `${file}: 2 keys omp does not know are ignored: tools.disabeld (did you mean disabled?), approvalmode (did you mean approvalMode?); \`omp config unset tools.disabeld\` removes one`,
    ]);
    expect(model).toBe("a/b");
  });

  test("one unknown key is said with the keys allowed there", () => {
    const { agent, cwd, env } = setup({ global: "tools:\n  disabeld: [bash]\n" });
    expect(warningsOf(() => loadSettings({ cwd, env }))).toEqual([`${join(agent, "config.yml")}: tools.disabeld: unknown key (did you mean disabled?); allowed here: disabled, discoveryMode, essentialOverride, approval${unset("tools.disabeld")}`]);
  });

  test("runtime overrides are validated too", () => {
    const { cwd, env } = setup();
    const error = errorOf(() => loadSettings({ cwd, env, runtime: { thinking: "extreme" as never } }));
    expect(error.message).toBe('command-line options: thinking: got "extreme", expected one of off, minimal, low, medium, high, xhigh');
  });

  test("YAML syntax errors give line and column, and the file is skipped", () => {
    const { agent, cwd, env } = setup({ global: "model: a\ntools:\n  disabled: [bash\n" });
    const warnings = warningsOf(() => expect(loadSettings({ cwd, env }).settings.model).toBeUndefined());
    expect(warnings).toHaveLength(1);
    // At the unclosed [ itself, not where the file ends without it.
    expect(warnings[0]).toMatch(new RegExp(`^${join(agent, "config.yml").replaceAll(".", "\\.")}:3:13: invalid YAML: `));
    expect(warnings[0]).toEndWith("(the file is ignored until it is fixed)");
  });

  test("duplicate keys are a YAML error", () => {
    const { cwd, env } = setup({ project: "model: a\nmodel: b\n" });
    expect(warningsOf(() => loadSettings({ cwd, env, trusted: true }))[0]).toContain(`${join(cwd, ".omp", "config.yml")}:2:1: invalid YAML: Map keys must be unique`);
  });

  test("a top-level list is refused", () => {
    const { agent, cwd, env } = setup({ global: "- model\n" });
    expect(warningsOf(() => loadSettings({ cwd, env }))).toEqual([`${join(agent, "config.yml")}: got a list at the top level, expected a mapping of keys (the file is ignored until it is fixed)`]);
  });

  test("a --config overlay, given on purpose, must be right", () => {
    const { cwd, env } = setup({ extra: { "a.yml": "approvalMode: sometimes\n" } });
    expect(errorOf(() => loadSettings({ cwd, env, overlays: ["a.yml"] })).message).toBe(`${join(cwd, "a.yml")}: approvalMode: got "sometimes", expected one of always-ask, write, yolo`);
  });

  test("a missing --config overlay is an error, not a silent fallback", () => {
    const { cwd, env } = setup();
    const error = errorOf(() => loadSettings({ cwd, env, overlays: ["nope.yml"] }));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(`${join(cwd, "nope.yml")}: file not found (given with --config)`);
  });
});
