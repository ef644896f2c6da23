// The validated-config cache: a run whose config files are unchanged reads them from the cache
// (no YAML, no zod) and must get exactly what the slow path gives; any trouble with the cache
// itself falls back to the slow path.
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { z } from "zod";
import { configCachePath } from "../../../core/config/config-cache.ts";
import { deepMerge } from "../../../core/config/merge.ts";
import { customModels, loadModelsConfig } from "../../../core/config/models.ts";
import { settingKeys } from "../../../core/config/settings-keys.ts";
import { Settings, type SettingsInput } from "../../../core/config/settings-schema.ts";
import { schemaAt } from "../../../core/config/schema-walk.ts";
import { type LoadSettingsOptions, loadSettings } from "../../../core/config/settings.ts";
import { validateConfig } from "../../../core/config/validate-config.ts";
import type { Mapping } from "../../../core/config/config-file.ts";
import { parseYamlMapping } from "../../../core/config/yaml-file.ts";
import { VERSION } from "../../../core/version.ts";
import { scratchDir } from "./scratch.ts";
import { errorOf, warningsOf } from "../../support/omp-error.ts";

function setup() {
  const root = scratchDir("omp-config-cache-");
  const agent = join(root, "agent");
  const cwd = join(root, "project");
  mkdirSync(agent, { recursive: true });
  mkdirSync(join(cwd, ".omp"), { recursive: true });
  const env = { OMP_AGENT_DIR: agent };
  return {
    agent,
    cwd,
    env,
    cacheFile: configCachePath(env),
    globalConfig: join(agent, "config.yml"),
    projectConfig: join(cwd, ".omp", "config.yml"),
    globalModels: join(agent, "models.yml"),
    projectModels: join(cwd, ".omp", "models.yml"),
  };
}

type Cache = { version: string; files: Record<string, { hash: string; values: Mapping }> };
const readCache = (file: string): Cache => JSON.parse(readFileSync(file, "utf8"));
/** The cache's key for a file read as config.yml, or as models.yml. */
const asSettings = (path: string) => `settings:${path}`;
const asModels = (path: string) => `models:${path}`;

/** The slow path as it was before the cache: each file parsed and validated, the merge validated with defaults. */
function reference(files: string[], runtime?: SettingsInput): z.output<typeof Settings> {
  const layers = files.map((file) => {
    const values = parseYamlMapping(readFileSync(file, "utf8"), file);
    validateConfig(Settings, values, file);
    // A project's file never chooses the auth broker, the sandbox, the hosts sent to without asking, where memories are kept nor the collab relay, trusted or not (see settings.ts).
    if (file.endsWith(join(".omp", "config.yml"))) {
      delete values.auth;
      delete values.sandbox;
      delete values.collab;
      if (values.web && typeof values.web === "object") values.web = Object.fromEntries(Object.entries(values.web).filter(([key]) => key !== "allowHosts"));
      if (values.mnemopi && typeof values.mnemopi === "object") values.mnemopi = Object.fromEntries(Object.entries(values.mnemopi).filter(([key]) => key !== "dbPath"));
    }
    return values;
  });
  if (runtime) layers.push(runtime as Mapping);
  return validateConfig(Settings, layers.reduce<Mapping>((acc, layer) => deepMerge(acc, layer), {}), "merged settings");
}

/** Loads twice (the first fills the cache, the second must hit it) and holds both to the reference. */
function expectSameAsSlowPath(options: LoadSettingsOptions & { cwd: string; env: Record<string, string> }, files: string[]) {
  const cacheFile = configCachePath(options.env);
  // Trusted: the reference applies every layer in full.
  const first = loadSettings({ ...options, trusted: true });
  const cache = existsSync(cacheFile) ? readCache(cacheFile) : undefined;
  expect(Object.keys(cache?.files ?? {}).sort()).toEqual(files.map(asSettings).sort());
  const second = loadSettings({ ...options, trusted: true });
  expect(existsSync(cacheFile) ? readCache(cacheFile) : undefined).toEqual(cache);

  const expected = reference(files, options.runtime);
  expect(first.settings).toStrictEqual(expected);
  expect(second.settings).toStrictEqual(expected);
  expect(second.layers).toStrictEqual(first.layers);
  for (const key of settingKeys()) expect(second.sourceOf(key)).toStrictEqual(first.sourceOf(key));
}

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number) {
  let state = seed;
  const next = () => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!,
  };
}

const STRINGS = ["a", "anthropic/claude-sonnet-4-5:high", "with space", "ünïcødé ✓", "yes", "null", "123", "#not a comment", "quote\"d", "multi\nline", "x".repeat(300)];

/** A valid value for the leaf setting `key`, of whatever kind the schema says it is. */
function validValue(key: string, rng: ReturnType<typeof random>): unknown {
  return valueOf(schemaAt(Settings, key.split(".")), key, rng);
}

function valueOf(schema: z.ZodType | undefined, key: string, rng: ReturnType<typeof random>): unknown {
  if (schema instanceof z.ZodUnion) return valueOf(rng.pick(schema.options as readonly z.ZodType[]), key, rng);
  if (schema instanceof z.ZodBoolean) return rng.next() < 0.5;
  if (schema instanceof z.ZodEnum) return rng.pick(schema.options);
  if (schema instanceof z.ZodNumber) {
    const min = schema.minValue ?? -1e6;
    const max = Math.min(schema.maxValue ?? 1e6, 1e6);
    return schema.isInt ? rng.int(min, max) : min + rng.next() * (max - min);
  }
  if (schema instanceof z.ZodString) return rng.pick(STRINGS);
  if (schema instanceof z.ZodArray) return Array.from({ length: rng.int(0, 3) }, () => rng.pick(STRINGS));
  if (schema instanceof z.ZodRecord && key === "modelRoles") return { [rng.pick(["smol", "plan", "review"])]: rng.pick(STRINGS) };
  if (schema instanceof z.ZodRecord && !(schema.valueType instanceof z.ZodUnknown)) return { [rng.pick(["bash", "write"])]: valueOf(schema.valueType as z.ZodType, key, rng) };
  if (schema instanceof z.ZodRecord) return { [rng.pick(["PreToolUse", "Stop"])]: [{ matcher: rng.pick(STRINGS), hooks: [{ type: "command", command: rng.pick(STRINGS), timeout: rng.int(1, 600) }] }] };
  throw new Error(`no generator for ${key} (${schema?.constructor.name}): add one so the cache is tested with it`);
}

/** Some of the settings, each set to a valid value, as nested mappings. */
function randomSettings(rng: ReturnType<typeof random>): Mapping {
  let values: Mapping = {};
  for (const key of settingKeys()) {
    if (rng.next() < 0.6) continue;
    const leaf = key
      .split(".")
      .reverse()
      .reduce<unknown>((inner, part) => ({ [part]: inner }), validValue(key, rng));
    values = deepMerge(values, leaf as Mapping);
  }
  return values;
}

describe("a cache hit gives exactly what the slow path gives", () => {
  test("no files: the defaults made at bundle time are the schema's, and nothing is cached", () => {
    const { cwd, env, cacheFile } = setup();
    expect(loadSettings({ cwd, env }).settings).toStrictEqual(Settings.parse({}));
    expect(existsSync(cacheFile)).toBe(false);
  });

  const handWritten: [string, { global?: string; project?: string; overlays?: string[]; runtime?: SettingsInput }][] = [
    ["an empty file and a comment-only file", { global: "", project: "# nothing yet\n" }],
    ["keys with empty values and a group whose children are commented out", { global: "model:\ntools:\n  # disabled: [bash]\n", project: "thinking: low\n" }],
    [
      "nested keys deep-merge, lists replace",
      {
        global: "model: global/model\nthinking: high\ntools:\n  disabled: [bash, edit]\ncompaction:\n  enabled: false\n  reserveTokens: 1000\n",
        project: "thinking: low\ntools:\n  disabled: [write]\ncompaction:\n  keepRecentTokens: 5\n",
        overlays: ["thinking: minimal\nbash:\n  timeoutSeconds: 10\n", "bash:\n  timeoutSeconds: 20\n"],
        runtime: { approvalMode: "write", model: "runtime/model" },
      },
    ],
    ["an empty list over a full one", { global: "tools:\n  disabled: [read, grep]\n", project: "tools:\n  disabled: []\n" }],
    [
      "every kind of setting, block and flow style, anchors, quoting and multi-line strings",
      {
        global:
          'model: "anthropic/claude-sonnet-4-5:high"\napprovalMode: always-ask\nretry: {maxRetries: 0, baseDelayMs: 1}\nupdate:\n  channel: canary\n  checkForUpdates: false\nsessionDir: &dir ./sessions\n',
        project: "tools:\n  disabled:\n    - bash\n    - 'edit'\n    - \"todo\"\nbash:\n  timeoutSeconds: 3600\nsessionDir: |\n  multi\n  line\n",
        overlays: ["compaction: {enabled: true, reserveTokens: 0, keepRecentTokens: 123456789}\n"],
        runtime: { thinking: "xhigh" },
      },
    ],
  ];

  test.each(handWritten)("%s", (_name, files) => {
    const { cwd, env, globalConfig, projectConfig } = setup();
    const paths: string[] = [];
    if (files.global !== undefined) writeFileSync(globalConfig, files.global), paths.push(globalConfig);
    if (files.project !== undefined) writeFileSync(projectConfig, files.project), paths.push(projectConfig);
    const overlays = (files.overlays ?? []).map((text, i) => {
      writeFileSync(join(cwd, `overlay-${i}.yml`), text);
      paths.push(join(cwd, `overlay-${i}.yml`));
      return `overlay-${i}.yml`;
    });
    expectSameAsSlowPath({ cwd, env, overlays, runtime: files.runtime }, paths);
  });

  test("random valid settings over every layer, 60 rounds", () => {
    const rng = random(20240601);
    for (let round = 0; round < 60; round++) {
      const { cwd, env, globalConfig, projectConfig } = setup();
      const paths: string[] = [];
      if (rng.next() < 0.8) writeFileSync(globalConfig, stringify(randomSettings(rng))), paths.push(globalConfig);
      if (rng.next() < 0.6) writeFileSync(projectConfig, stringify(randomSettings(rng), { collectionStyle: rng.pick(["any", "flow"] as const) })), paths.push(projectConfig);
      const overlays = Array.from({ length: rng.int(0, 2) }, (_, i) => {
        writeFileSync(join(cwd, `o${i}.yml`), stringify(randomSettings(rng)));
        paths.push(join(cwd, `o${i}.yml`));
        return `o${i}.yml`;
      });
      const runtime: SettingsInput = {};
      if (rng.next() < 0.5) runtime.model = rng.pick(STRINGS);
      if (rng.next() < 0.5) runtime.thinking = validValue("thinking", rng) as never;
      if (rng.next() < 0.5) runtime.approvalMode = validValue("approvalMode", rng) as never;
      expectSameAsSlowPath({ cwd, env, overlays, runtime: Object.keys(runtime).length > 0 ? runtime : undefined }, paths);
    }
  });

  test("runtime values need no schema when plainly valid, and get the schema's error when not", () => {
    const { cwd, env } = setup();
    expect(loadSettings({ cwd, env, runtime: { model: "m", thinking: "off", approvalMode: "always-ask" } }).settings).toStrictEqual(
      reference([], { model: "m", thinking: "off", approvalMode: "always-ask" }),
    );
    expect(errorOf(() => loadSettings({ cwd, env, runtime: { model: "" } })).message).toBe('command-line options: model: got "", expected a string of length ≥ 1');
    expect(errorOf(() => loadSettings({ cwd, env, runtime: { approvalMode: "sometimes" as never } })).message).toBe(
      'command-line options: approvalMode: got "sometimes", expected one of always-ask, write, yolo',
    );
    expect(errorOf(() => loadSettings({ cwd, env, runtime: { retry: { maxRetries: -1 } } })).message).toBe("command-line options: retry.maxRetries: got -1, expected a number ≥ 0");
    // Valid, but not a plain string: the schema decides.
    expect(loadSettings({ cwd, env, runtime: { retry: { maxRetries: 2 } } }).settings.retry).toEqual({ maxRetries: 2, baseDelayMs: 500, idleTimeoutSeconds: 300 });
  });

  test("the result shares nothing with the defaults or the layers", () => {
    const { cwd, env, globalConfig } = setup();
    writeFileSync(globalConfig, "tools:\n  disabled: [bash]\n");
    const first = loadSettings({ cwd, env });
    first.settings.tools.disabled.push("read");
    first.settings.retry.maxRetries = 99;
    const second = loadSettings({ cwd, env });
    expect(second.settings.tools.disabled).toEqual(["bash"]);
    expect(second.settings.retry.maxRetries).toBe(10);
    expect(loadSettings({ cwd, env: { OMP_AGENT_DIR: join(cwd, "elsewhere") } }).settings.retry.maxRetries).toBe(10);
  });
});

describe("hits, misses and what is kept", () => {
  test("a hit takes the values from the cache; a change to the file is a miss that replaces the entry", () => {
    const { cwd, env, globalConfig, cacheFile } = setup();
    writeFileSync(globalConfig, "thinking: low\n");
    expect(loadSettings({ cwd, env }).settings.thinking).toBe("low");
    // Tampering with the cached values shows that the next run takes them instead of reading the file.
    const cache = readCache(cacheFile);
    cache.files[asSettings(globalConfig)]!.values = { thinking: "high" };
    writeFileSync(cacheFile, JSON.stringify(cache));
    expect(loadSettings({ cwd, env }).settings.thinking).toBe("high");

    writeFileSync(globalConfig, "thinking: minimal\n");
    expect(loadSettings({ cwd, env }).settings.thinking).toBe("minimal");
    const after = readCache(cacheFile);
    expect(Object.keys(after.files)).toEqual([asSettings(globalConfig)]);
    expect(after.files[asSettings(globalConfig)]!.values).toEqual({ thinking: "minimal" });
    expect(after.files[asSettings(globalConfig)]!.hash).not.toBe(cache.files[asSettings(globalConfig)]!.hash);
  });

  test("the same bytes at another path are another entry; a file that is gone loses its entry", () => {
    const { cwd, env, globalConfig, projectConfig, cacheFile } = setup();
    writeFileSync(globalConfig, "model: a\n");
    writeFileSync(projectConfig, "model: a\n");
    loadSettings({ cwd, env });
    expect(Object.keys(readCache(cacheFile).files).sort()).toEqual([globalConfig, projectConfig].map(asSettings).sort());
    rmSync(projectConfig);
    expect(loadSettings({ cwd, env }).layers.map((layer) => layer.kind)).toEqual(["global"]);
    expect(Object.keys(readCache(cacheFile).files)).toEqual([asSettings(globalConfig)]);
  });

  test("a file is cached as the kind it was read as: a models.yml given with --config is still checked as settings", () => {
    const { cwd, env, globalModels } = setup();
    writeFileSync(globalModels, "providers:\n  openai:\n    apiKey: K\n");
    loadModelsConfig({ cwd, env });
    const message = errorOf(() => loadSettings({ cwd, env, overlays: [globalModels] })).message;
    expect(message).toStartWith(`${globalModels}: providers: unknown key`);
    expect(loadModelsConfig({ cwd, env }).config.providers.openai).toEqual({ apiKey: "K" });
  });

  test("another omp version ignores the cache and replaces it", () => {
    const { cwd, env, globalConfig, cacheFile } = setup();
    writeFileSync(globalConfig, "thinking: low\n");
    loadSettings({ cwd, env });
    const cache = readCache(cacheFile);
    cache.version = `${VERSION}-other`;
    cache.files[asSettings(globalConfig)]!.values = { thinking: "high" };
    writeFileSync(cacheFile, JSON.stringify(cache));
    expect(loadSettings({ cwd, env }).settings.thinking).toBe("low");
    expect(readCache(cacheFile)).toEqual({ version: VERSION, files: { [asSettings(globalConfig)]: { hash: cache.files[asSettings(globalConfig)]!.hash, values: { thinking: "low" } } } });
  });

  test("a bad file is never cached and gives the same warning on every run", () => {
    const { cwd, env, globalConfig, projectConfig, cacheFile } = setup();
    writeFileSync(globalConfig, "thinking: low\n");
    writeFileSync(projectConfig, "compaction:\n  enabled: maybe\n");
    const message = `${projectConfig}: compaction.enabled: got "maybe", expected true or false (ignored; \`omp config unset --project compaction.enabled\` removes it)`;
    expect(warningsOf(() => loadSettings({ cwd, env, trusted: true }))).toEqual([message]);
    // The good file before it is kept; the bad one is not.
    expect(Object.keys(readCache(cacheFile).files)).toEqual([asSettings(globalConfig)]);
    expect(warningsOf(() => loadSettings({ cwd, env, trusted: true }))).toEqual([message]);
    writeFileSync(projectConfig, "model: [unclosed\n");
    const yaml = warningsOf(() => loadSettings({ cwd, env, trusted: true }));
    // At the unclosed [ itself, not where the file ends without it.
    expect(yaml[0]).toStartWith(`${projectConfig}:1:8: invalid YAML`);
    expect(warningsOf(() => loadSettings({ cwd, env, trusted: true }))).toEqual(yaml);
    expect(Object.keys(readCache(cacheFile).files)).toEqual([asSettings(globalConfig)]);
  });

  test("the cache keeps at most 256 files, dropping the ones written longest ago", () => {
    const { cwd, env, cacheFile } = setup();
    const overlays = Array.from({ length: 264 }, (_, i) => {
      writeFileSync(join(cwd, `o${i}.yml`), `retry:\n  maxRetries: ${i}\n`);
      return `o${i}.yml`;
    });
    expect(loadSettings({ cwd, env, overlays }).settings.retry.maxRetries).toBe(263);
    expect(Object.keys(readCache(cacheFile).files)).toEqual(overlays.slice(8).map((name) => asSettings(join(cwd, name))));
  });
});

describe("trouble with the cache itself falls back to the slow path", () => {
  test("written atomically with mode 0600 in a 0700 dir, whatever mode an old cache had", () => {
    const { agent, cwd, env, globalConfig, cacheFile } = setup();
    writeFileSync(globalConfig, "thinking: low\n");
    loadSettings({ cwd, env });
    expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
    expect(statSync(join(agent, "cache")).mode & 0o777).toBe(0o700);
    chmodSync(cacheFile, 0o644);
    writeFileSync(globalConfig, "thinking: high\n");
    loadSettings({ cwd, env });
    expect(statSync(cacheFile).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(agent, "cache"))).toEqual(["config.json"]);
  });

  test.each([
    ["not JSON", "{\"version\": \"0.1"],
    ["JSON of the wrong shape", "[1, 2, 3]"],
    ["entries of the wrong shape", JSON.stringify({ version: VERSION, files: { x: null } })],
    ["empty", ""],
  ])("a corrupt cache (%s) is a miss and is replaced", (_name, text) => {
    const { cwd, env, globalConfig, cacheFile } = setup();
    writeFileSync(globalConfig, "thinking: low\n");
    mkdirSync(join(cacheFile, ".."), { recursive: true });
    writeFileSync(cacheFile, text.replace('"x"', JSON.stringify(asSettings(globalConfig))));
    expect(loadSettings({ cwd, env }).settings.thinking).toBe("low");
    expect(readCache(cacheFile).files[asSettings(globalConfig)]!.values).toEqual({ thinking: "low" });
  });

  test("a directory where the cache belongs: loads, and stays a directory", () => {
    const { cwd, env, globalConfig, globalModels, cacheFile } = setup();
    writeFileSync(globalConfig, "thinking: low\n");
    writeFileSync(globalModels, "providers:\n  openai:\n    apiKey: K\n");
    mkdirSync(cacheFile, { recursive: true });
    for (let run = 0; run < 2; run++) {
      expect(loadSettings({ cwd, env }).settings.thinking).toBe("low");
      expect(loadModelsConfig({ cwd, env }).config.providers.openai?.apiKey).toBe("K");
    }
    expect(statSync(cacheFile).isDirectory()).toBe(true);
    expect(readdirSync(join(cacheFile, ".."))).toEqual(["config.json"]);
  });

  test("a cache dir that cannot be made: loads anyway", () => {
    const { agent, cwd, env, globalConfig } = setup();
    writeFileSync(globalConfig, "thinking: low\n");
    writeFileSync(join(agent, "cache"), "a file where the cache dir belongs");
    for (let run = 0; run < 2; run++) expect(loadSettings({ cwd, env }).settings.thinking).toBe("low");
    expect(readdirSync(agent).sort()).toEqual(["cache", "config.yml"]);
  });

  test.skipIf(process.getuid?.() === 0)("a read-only agent dir: loads anyway", () => {
    const { agent, cwd, env, globalConfig } = setup();
    writeFileSync(globalConfig, "thinking: low\n");
    chmodSync(agent, 0o555);
    try {
      for (let run = 0; run < 2; run++) expect(loadSettings({ cwd, env }).settings.thinking).toBe("low");
      expect(readdirSync(agent)).toEqual(["config.yml"]);
    } finally {
      chmodSync(agent, 0o755);
    }
  });
});

describe("models.yml through the cache", () => {
  const GLOBAL = `providers:
  corp:
    baseUrl: https://corp.example.com/v1/
    apiKey: CORP_KEY
    api: anthropic-messages
    headers: { X-Team: platform }
  openai:
    apiKey: sk-literal-key
`;
  const PROJECT = `providers:
  corp:
    models:
      - id: claude-corp
        cost: { input: 3, output: 15 }
        headers: { X-Model: c }
      - id: small
        api: openai-completions
        reasoning: true
        input: [text, image]
        contextWindow: 8192
  local:
    baseUrl: http://127.0.0.1:8000
    auth: none
    api: openai-completions
    models: [{ id: qwen, name: Qwen }]
`;

  test("a hit gives the same config and models as the first run, and the cache holds both files", () => {
    const { cwd, env, globalModels, projectModels, cacheFile } = setup();
    writeFileSync(globalModels, GLOBAL);
    writeFileSync(projectModels, PROJECT);
    const first = loadModelsConfig({ cwd, env, trusted: true });
    expect(Object.keys(readCache(cacheFile).files).sort()).toEqual([globalModels, projectModels].map(asModels).sort());
    const second = loadModelsConfig({ cwd, env, trusted: true });
    expect(second).toStrictEqual(first);
    expect(customModels(second.config)).toStrictEqual(customModels(first.config));
    expect(customModels(second.config).map((m) => `${m.provider}/${m.id}`)).toEqual(["corp/claude-corp", "corp/small", "local/qwen"]);
    expect(second.config.providers.openai).toEqual({ apiKey: "sk-literal-key" });
  });

  test("the merged view is checked on every run: two files each fine alone, broken together, give the same error twice", () => {
    const { cwd, env, globalModels, projectModels, cacheFile } = setup();
    writeFileSync(globalModels, "providers:\n  corp:\n    apiKey: K\n");
    writeFileSync(projectModels, "providers:\n  corp:\n    api: openai-completions\n    models:\n      - id: x\n      - id: x\n");
    const message = errorOf(() => loadModelsConfig({ cwd, env, trusted: true })).message;
    expect(message.split("\n")).toEqual([
      `${projectModels}: providers.corp.baseUrl: missing; required for a provider that lists models`,
      `${projectModels}: providers.corp.models[1].id: "x" is listed twice`,
    ]);
    expect(Object.keys(readCache(cacheFile).files).sort()).toEqual([globalModels, projectModels].map(asModels).sort());
    expect(errorOf(() => loadModelsConfig({ cwd, env, trusted: true })).message).toBe(message);
  });

  test("a bad models.yml is never cached; fixing it takes effect at once", () => {
    const { cwd, env, globalModels, cacheFile } = setup();
    writeFileSync(globalModels, "providers:\n  local:\n    baseUrl: notaurl\n    auth: none\n    api: openai-completions\n    models: [{id: m}]\n");
    const message = errorOf(() => loadModelsConfig({ cwd, env })).message;
    expect(message).toBe(`${globalModels}: providers.local.baseUrl: got "notaurl", expected a URL`);
    expect(existsSync(cacheFile)).toBe(false);
    expect(errorOf(() => loadModelsConfig({ cwd, env })).message).toBe(message);
    writeFileSync(globalModels, "providers:\n  local:\n    baseUrl: http://127.0.0.1:1\n    auth: none\n    api: openai-completions\n    models: [{id: m}]\n");
    expect(customModels(loadModelsConfig({ cwd, env }).config).map((m) => m.baseUrl)).toEqual(["http://127.0.0.1:1"]);
    expect(Object.keys(readCache(cacheFile).files)).toEqual([asModels(globalModels)]);
  });

  test("settings and models share the cache file without dropping each other's entries", () => {
    const { cwd, env, globalConfig, globalModels, cacheFile } = setup();
    writeFileSync(globalConfig, "thinking: low\n");
    writeFileSync(globalModels, GLOBAL);
    loadSettings({ cwd, env });
    loadModelsConfig({ cwd, env });
    expect(Object.keys(readCache(cacheFile).files).sort()).toEqual([asSettings(globalConfig), asModels(globalModels)].sort());
  });
});
