import { builtinModels, discoverLocalModels, getProvider } from "../ai/index.ts";
import { claudeName, sameClaude, versionDistance } from "../ai/claude-names.ts";
import { type Model, type ThinkingLevel, isThinkingLevel } from "../ai/model.ts";
import type { ModelsConfig } from "../config/models-schema.ts";
import { customModels } from "../config/models.ts";
import { OmpError } from "../errors/omp-error.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

type Env = Record<string, string | undefined>;

/**
 * The models omp can use: the built-in catalog (base URLs as the environment and models.yml
 * override them) and models.yml's own. Local servers are added by {@link withLocalModels} only when
 * needed, since probing them is I/O.
 */
export function knownModels(config: ModelsConfig, env: Env = process.env): Model[] {
  const builtin = builtinModels(env).map((model) => {
    const override = config.providers[model.provider];
    if (!override) return model;
    return {
      ...model,
      baseUrl: override.baseUrl ? override.baseUrl.replace(/\/+$/, "") : model.baseUrl,
      headers: override.headers ? { ...model.headers, ...override.headers } : model.headers,
    };
  });
  // A models.yml model that does not say how it thinks takes the built-in one's of the same id and
  // api: a proxy serving claude-opus-5-5 needs the same request shape as Anthropic does.
  const custom = customModels(config).map((model) => {
    if (model.thinking) return model;
    const known = builtin.find((m) => m.id === model.id && m.api === model.api && m.thinking);
    return known ? { ...model, thinking: known.thinking } : model;
  });
  const customKeys = new Set(custom.map((m) => `${m.provider}/${m.id}`));
  return [...custom, ...builtin.filter((m) => !customKeys.has(`${m.provider}/${m.id}`))];
}

export async function withLocalModels(models: Model[], env: Env = process.env): Promise<Model[]> {
  const local = await discoverLocalModels({ env });
  const seen = new Set(models.map((m) => `${m.provider}/${m.id}`));
  return [...models, ...local.filter((m) => !seen.has(`${m.provider}/${m.id}`))];
}

export interface ModelChoice {
  model: Model;
  /** From a `:level` suffix on the pattern. */
  thinking?: ThinkingLevel;
}

const normalise = (text: string) => text.toLowerCase().replace(/[\s_.]+/g, "-");

/**
 * The version numbers in a model id, for "newest": `claude-opus-5-5` → [5, 5], `gpt-6.2-sol` →
 * [6, 2], `deepseek-v4-pro` → [4]. Dates (`-20250929`) and sizes (`120b`) are not versions.
 */
function versionOf(id: string): number[] {
  return id
    .split(/[-./_:]/)
    .filter((part) => /^v?\d{1,5}$/.test(part))
    .map((part) => Number(part.replace(/^v/, "")));
}

function compareVersions(a: number[], b: number[]): number {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const diff = (a[i] ?? -1) - (b[i] ?? -1);
    if (diff !== 0) return diff;
  }
  return 0;
}

/**
 * Finds the model a user means: `provider/id`, an exact id, or a fuzzy name ("sonnet",
 * "gpt 5 mini"), with an optional `:thinking` suffix. Among several fuzzy matches the newest wins
 * (`opus` is the highest-numbered Opus), then the shortest id (the plain model over its dated or
 * suffixed variants). A Claude name as Claude Code users write it (`sonnet`, `claude-sonnet-4-0`,
 * dated or `-latest`) is read as its family and version. Models of a provider the user can use
 * (`usable`: it has a key) come before the rest, so `sonnet` with only ANTHROPIC_API_KEY is
 * Anthropic's, not Bedrock's. No match is an error that lists the closest names.
 */
export function resolveModel(pattern: string, models: Model[], usable: (model: Model) => boolean = () => true): ModelChoice {
  let text = pattern.trim();
  let thinking: ThinkingLevel | undefined;
  const colon = text.lastIndexOf(":");
  if (colon > 0) {
    const level = text.slice(colon + 1);
    if (isThinkingLevel(level)) {
      thinking = level;
      text = text.slice(0, colon);
    }
  }
  const slash = text.indexOf("/");
  const provider = slash > 0 && getProviderOrCustom(text.slice(0, slash), models) ? text.slice(0, slash) : undefined;
  const idPart = provider ? text.slice(slash + 1) : text;
  const pool = provider ? models.filter((m) => m.provider === provider) : models;

  const usableFirst = (a: Model, b: Model) => Number(usable(b)) - Number(usable(a));
  const exact = pool.filter((m) => m.id === idPart).sort(usableFirst);
  if (exact.length > 0) return { model: exact[0]!, thinking };
  const claude = claudeModel(idPart, pool, usable);
  if (claude) return { model: claude, thinking };
  const wanted = normalise(idPart);
  const fuzzy = pool
    .filter((m) => normalise(m.id).includes(wanted) || normalise(m.name).includes(wanted))
    .sort((a, b) => usableFirst(a, b) || compareVersions(versionOf(b.id), versionOf(a.id)) || a.id.length - b.id.length || a.id.localeCompare(b.id));
  if (fuzzy.length > 0) return { model: fuzzy[0]!, thinking };

  const words = wanted.split("-").filter(Boolean);
  const near = pool
    .map((m) => ({ m, score: words.filter((w) => normalise(`${m.id} ${m.name}`).includes(w)).length }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, 5)
    .map((x) => `${x.m.provider}/${x.m.id}`);
  const hint = near.length > 0 ? ` Did you mean ${near.join(", ")}?` : "";
  throw new OmpError(`unknown model ${JSON.stringify(pattern)}.${hint} List the models with \`omp --list-models\`.`, { exitCode: EXIT_USAGE });
}

/**
 * `--models` entries as the original omp takes them: a glob (`anthropic/*`, `claude*`, `*sonnet*`)
 * stands for every model whose `provider/id` or id it matches, case-insensitively, in catalog
 * order; anything else is one model as resolveModel finds it. A glob that matches nothing is an error.
 */
export function resolveModelPatterns(patterns: readonly string[], models: Model[], usable?: (model: Model) => boolean): Model[] {
  return patterns.flatMap((pattern) => {
    if (!/[*?]/.test(pattern)) return [resolveModel(pattern, models, usable).model];
    const escaped = pattern.trim().replace(/[.+^${}()|[\]\\]/g, "\\$&").replaceAll("*", ".*").replaceAll("?", ".");
    const glob = new RegExp(`^${escaped}$`, "i");
    const matched = models.filter((m) => glob.test(`${m.provider}/${m.id}`) || glob.test(m.id));
    if (matched.length === 0) throw new OmpError(`no model matches ${JSON.stringify(pattern)}. List the models with \`omp --list-models\`.`, { exitCode: EXIT_USAGE });
    return matched;
  });
}

/**
 * The model a Claude name means: the catalog's model of that family and version, or — for a
 * version the catalog does not list (`claude-sonnet-4-0`) — that id on the provider, sent as
 * written, with the limits and thinking of the family's nearest model there.
 */
function claudeModel(id: string, pool: Model[], usable: (model: Model) => boolean): Model | undefined {
  const wanted = claudeName(id);
  if (!wanted) return undefined;
  const family = pool.flatMap((model) => {
    const name = model.id.startsWith("claude-") ? claudeName(model.id) : undefined;
    return name?.family === wanted.family ? [{ model, name }] : [];
  });
  family.sort((a, b) => Number(usable(b.model)) - Number(usable(a.model)) || versionDistance(a.name.version, wanted.version) - versionDistance(b.name.version, wanted.version));
  const nearest = family[0];
  if (!nearest) return undefined;
  return sameClaude(nearest.name, wanted) ? nearest.model : { ...nearest.model, id, name: id };
}

function getProviderOrCustom(id: string, models: Model[]): boolean {
  return getProvider(id) !== undefined || models.some((m) => m.provider === id);
}

/**
 * Default cloud models, in the order omp prefers them when their key is present: each provider's
 * own pick for agentic coding (Anthropic starts most work on Opus 5.5, OpenAI calls GPT-6.2 Sol its
 * go-to for coding and agents, Google's Gemini 4 Carbon is its model for hard coding work).
 */
const DEFAULTS = ["anthropic/claude-opus-5-5", "openai/gpt-6.2-sol", "google/gemini-4-carbon", "openrouter/anthropic/claude-opus-5.5"];

/**
 * Claude Code's switches for running Claude through a cloud account: a user who set one of them
 * means that account, whatever other keys are around.
 */
const CLAUDE_CODE_CLOUDS: [string, string][] = [
  ["CLAUDE_CODE_USE_BEDROCK", "amazon-bedrock/anthropic.claude-opus-5-5-v1:0"],
  ["CLAUDE_CODE_USE_VERTEX", "google-vertex-anthropic/claude-opus-5-5"],
  ["CLAUDE_CODE_USE_FOUNDRY", "azure-foundry/claude-opus-5-5"],
];

const truthy = (value: string | undefined) => value !== undefined && ["1", "true", "yes", "on"].includes(value.trim().toLowerCase());

/** The model to use when none was asked for: a default whose provider has a key, else a running local server's. */
export function defaultModelPattern(models: Model[], hasKey: (provider: string) => boolean, env: Record<string, string | undefined> = {}): string | undefined {
  const clouds = CLAUDE_CODE_CLOUDS.filter(([name]) => truthy(env[name])).map(([, pattern]) => pattern);
  for (const pattern of [...clouds, ...DEFAULTS]) {
    const [provider] = pattern.split("/");
    if (hasKey(provider!) && models.some((m) => `${m.provider}/${m.id}` === pattern)) return pattern;
  }
  const local = models.find((m) => getProvider(m.provider)?.local);
  return local ? `${local.provider}/${local.id}` : undefined;
}
