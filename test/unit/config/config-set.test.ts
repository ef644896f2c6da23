import { describe, expect, test } from "bun:test";
import { lstatSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { loadSettings } from "../../../core/config/settings.ts";
import { checkSettingKey, parseSettingValue, settingKeys } from "../../../core/config/settings-keys.ts";
import { setGlobalSetting, unsetSetting } from "../../../core/config/settings-write.ts";
import { scratchDir } from "./scratch.ts";
import { errorOf, warningsOf } from "../../support/omp-error.ts";

function setup(initial?: string) {
  const root = scratchDir("omp-config-set-");
  const agent = join(root, "agent");
  const cwd = join(root, "project");
  mkdirSync(cwd);
  const file = join(agent, "config.yml");
  if (initial !== undefined) {
    mkdirSync(agent);
    writeFileSync(file, initial);
  }
  return { agent, cwd, file, env: { OMP_AGENT_DIR: agent } };
}

const COMMENTED = `# my omp settings
model: anthropic/claude-sonnet-4-5 # the usual one

compaction:
  # keep it on, long sessions need it
  enabled: true
`;

describe("omp config set/get", () => {
  test("round trip keeps comments, order and other keys", () => {
    const { cwd, file, env } = setup(COMMENTED);
    expect(setGlobalSetting("compaction.reserveTokens", "9000", env)).toBe(9000);
    expect(setGlobalSetting("approvalMode", "write", env)).toBe("write");
    expect(setGlobalSetting("tools.disabled", "bash, edit", env)).toEqual(["bash", "edit"]);
    expect(setGlobalSetting("update.checkForUpdates", "off", env)).toBe(false);

    const text = readFileSync(file, "utf8");
    expect(text).toStartWith(`# my omp settings
model: anthropic/claude-sonnet-4-5 # the usual one

compaction:
  # keep it on, long sessions need it
  enabled: true
  reserveTokens: 9000
`);
    const { settings } = loadSettings({ cwd, env });
    expect(settings.model).toBe("anthropic/claude-sonnet-4-5");
    expect(settings.compaction).toEqual({ enabled: true, reserveTokens: 9000, keepRecentTokens: 20000, thresholdPercent: -1 });
    expect(settings.approvalMode).toBe("write");
    expect(settings.tools.disabled).toEqual(["bash", "edit"]);
    expect(settings.update.checkForUpdates).toBe(false);
  });

  test("creates the agent dir (0700) and the file (0600) when missing; no temp files left", () => {
    const { agent, cwd, file, env } = setup();
    setGlobalSetting("thinking", "high", env);
    expect(statSync(agent).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(agent)).toEqual(["config.yml"]);
    expect(loadSettings({ cwd, env }).settings.thinking).toBe("high");
  });

  test("a value the schema rejects leaves the file untouched", () => {
    const { file, env } = setup(COMMENTED);
    const error = errorOf(() => setGlobalSetting("bash.timeoutSeconds", "0", env));
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(`${file}: bash.timeoutSeconds: got 0, expected a number ≥ 1`);
    expect(errorOf(() => setGlobalSetting("approvalMode", "sometimes", env)).message).toBe(
      'approvalMode: got "sometimes", expected one of always-ask, write, yolo',
    );
    expect(errorOf(() => setGlobalSetting("compaction.enabled", "maybe", env)).message).toBe(
      'compaction.enabled: got "maybe", expected true or false',
    );
    expect(readFileSync(file, "utf8")).toBe(COMMENTED);
  });

  test("unknown keys and groups are refused with a hint", () => {
    const { env } = setup();
    expect(errorOf(() => setGlobalSetting("compaction.enabld", "true", env)).message).toStartWith(
      'unknown setting "compaction.enabld" (did you mean compaction.enabled?)',
    );
    expect(errorOf(() => setGlobalSetting("retry", "3", env)).message).toBe('"retry" is a group of settings; set one of retry.maxRetries, retry.baseDelayMs, retry.idleTimeoutSeconds');
  });

  test("a file with keys omp refuses (the original omp's) is edited around them, and unset removes them", () => {
    const { file, cwd, env } = setup("approvalMode: sometimes\nlastChangelogVersion: 18.2.3\n");
    setGlobalSetting("thinking", "low", env);
    expect(readFileSync(file, "utf8")).toBe("approvalMode: sometimes\nlastChangelogVersion: 18.2.3\nthinking: low\n");
    // An edit that adds a problem is still refused.
    expect(errorOf(() => setGlobalSetting("bash.timeoutSeconds", "99999", env)).message).toBe(`${file}: bash.timeoutSeconds: got 99999, expected a number ≤ 3600`);
    expect(unsetSetting("lastChangelogVersion", { scope: "global", env })).toBe(true);
    expect(unsetSetting("approvalMode", { scope: "global", env })).toBe(true);
    expect(readFileSync(file, "utf8")).toBe("thinking: low\n");
    expect(warningsOf(() => loadSettings({ cwd, env }))).toEqual([]);
    // A key neither known nor in the file is still a typo to point out.
    expect(errorOf(() => unsetSetting("lastChangelogVersoin", { scope: "global", env })).message).toContain('unknown setting "lastChangelogVersoin"');
  });

  test("a group left empty by commenting out its children can take a key", () => {
    const { cwd, env } = setup("tools:\n  # disabled: [bash]\n");
    setGlobalSetting("tools.disabled", '["read"]', env);
    expect(loadSettings({ cwd, env }).settings.tools.disabled).toEqual(["read"]);
  });

  test("a symlinked config.yml stays a symlink", () => {
    const { agent, cwd, env } = setup();
    mkdirSync(agent);
    const real = join(agent, "..", "dotfiles-config.yml");
    writeFileSync(real, "model: a\n");
    symlinkSync(real, join(agent, "config.yml"));
    setGlobalSetting("model", "b", env);
    expect(lstatSync(join(agent, "config.yml")).isSymbolicLink()).toBe(true);
    expect(readFileSync(real, "utf8")).toBe("model: b\n");
    expect(loadSettings({ cwd, env }).settings.model).toBe("b");
  });

  test("keys and value parsing", () => {
    expect(settingKeys()).toEqual([
      "model",
      "thinking",
      "approvalMode",
      "tools.disabled",
      "tools.discoveryMode",
      "tools.essentialOverride",
    "tools.approval",
      "retry.maxRetries",
      "retry.baseDelayMs",
    "retry.idleTimeoutSeconds",
      "compaction.enabled",
      "compaction.reserveTokens",
      "compaction.keepRecentTokens",
    "compaction.thresholdPercent",
      "bash.timeoutSeconds",
      "bash.autoBackgroundSeconds",
      "bash.maxLogBytes",
    "bashInterceptor.enabled",
    "read.defaultLimit",
      "sandbox.mode",
      "sandbox.network",
      "sandbox.writable",
      "sandbox.denyRead",
      "sandbox.envAllow",
      "sandbox.allowSockets",
      "update.channel",
      "update.checkForUpdates",
      "auth.broker.url",
      "auth.broker.token",
      "plugins.maxSizeMB",
      "plugins.maxEntries",
      "plugins.maxCompressionRatio",
      "mcp.maxResultMB",
      "mcp.maxDescriptionChars",
      "mcp.discoveryMode",
      "theme",
      "sessionDir",
      "hooks",
      "edit.mode",
      "web.allowHosts",
      "web.maxBytes",
      "web.timeoutSeconds",
      "web.cacheTtlSeconds",
      "web.nativeSearch",
      "web.search.provider",
      "web.search.apiKey",
      "web.search.baseUrl",
      "checkpoints.enabled",
      "checkpoints.maxBytes",
      "ttsr.enabled",
      "ttsr.contextMode",
      "ttsr.interruptMode",
      "ttsr.repeatMode",
      "ttsr.repeatGap",
      "ttsr.disabledRules",
      "lsp.enabled",
      "lsp.diagnosticsOnWrite",
      "lsp.formatOnWrite",
      "lsp.servers",
      "memory.backend",
      "mnemopi.scoping",
      "mnemopi.autoRecall",
      "mnemopi.recallLimit",
      "mnemopi.injectionTokenLimit",
      "mnemopi.dbPath",
      "modelRoles",
      "collab.relayUrl",
      "collab.displayName",
      "collab.relayToken",
      "questions.timeoutSeconds",
    ]);
    expect(checkSettingKey("compaction")).toEqual(["compaction"]);
    expect(parseSettingValue("tools.disabled", "")).toEqual([]);
    expect(parseSettingValue("update.checkForUpdates", "YES")).toBe(true);
    expect(parseSettingValue("model", "  openai/gpt-5 ")).toBe("openai/gpt-5");
    expect(parseSettingValue("theme", "light")).toBe("light");
    expect(errorOf(() => parseSettingValue("theme", "solarized")).message).toContain("auto, dark, light");
    expect(errorOf(() => parseSettingValue("retry.maxRetries", "many")).message).toBe('retry.maxRetries: got "many", expected a number');
    expect(errorOf(() => parseSettingValue("tools.disabled", "[bash")).message).toStartWith("tools.disabled: got");
  });
});
