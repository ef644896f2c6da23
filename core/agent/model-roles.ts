import type { Model } from "../ai/model.ts";
import { describeError } from "../errors/omp-error.ts";
import type { ModelSelection, Runtime } from "./runtime.ts";

/** The roles omp itself asks for; users may name any others in `modelRoles`. */
export const BUILTIN_ROLES = ["default", "smol", "slow", "plan"] as const;

export interface RoleModel {
  role: string;
  selection: ModelSelection;
  /** The pattern the role names; undefined when no role model is configured (the default model serves). */
  pattern?: string;
  /** The role's model could not be used (unknown, no credentials): why the default stands in. */
  fallback?: string;
}

/**
 * The model patterns by role: models.yml's `modelRoles`, under config.yml's (flags and env
 * variables reach the latter as runtime settings).
 */
export function rolePatterns(runtime: Runtime): Record<string, string> {
  return { ...runtime.options.modelsConfig.modelRoles, ...runtime.options.settings.modelRoles };
}

/**
 * `pi/<role>` (the original omp's alias, also `omp/<role>`), with a `:level` suffix or not: the
 * pattern `modelRoles` names for that role, the suffix kept (it wins over the role's own). Any other
 * pattern, or a role nobody configured, comes back as it is (and then fails as an unknown model).
 */
export function expandRoleAlias(runtime: Runtime, pattern: string, depth = 0): string {
  const alias = /^(?:pi|omp)\/([A-Za-z][\w-]*)(:[a-z]+)?$/.exec(pattern);
  const target = alias ? rolePatterns(runtime)[alias[1]!] : undefined;
  if (!alias || target === undefined || depth > 3) return pattern;
  // A role may name another role's alias; its own suffix still wins.
  const expanded = expandRoleAlias(runtime, target, depth + 1);
  return alias[2] ? `${expanded.replace(/:[a-z]+$/, "")}${alias[2]}` : expanded;
}

/**
 * The model for `role`: the one `modelRoles` names, with its credential, else the default
 * (`current` when given: the session's model) with the reason in `fallback`. Plan mode asks for
 * `plan`; titles, compaction and handoff summaries and subagents without a model ask for `smol`.
 */
export async function modelForRole(runtime: Runtime, role: string, current?: ModelSelection): Promise<RoleModel> {
  const pattern = rolePatterns(runtime)[role];
  const fallbackModel = async () => current ?? (await runtime.selectModel(undefined, false));
  if (pattern === undefined || (role === "default" && current)) return { role, selection: await fallbackModel() };
  try {
    return { role, pattern, selection: await runtime.selectModel(pattern, false) };
  } catch (error) {
    const selection = await fallbackModel();
    return { role, pattern, selection, fallback: `modelRoles.${role} (${pattern}) is not usable: ${describeError(error)}; using ${modelName(selection.model)}` };
  }
}

const modelName = (model: Model) => `${model.provider}/${model.id}`;

/** What an agent asks for a side job: the role's model when one is configured and usable, else undefined (the agent's own serves). */
export async function configuredRoleModel(runtime: Runtime, role: string): Promise<{ model: Model; apiKey: string | undefined } | undefined> {
  const pattern = rolePatterns(runtime)[role];
  if (pattern === undefined) return undefined;
  try {
    const selection = await runtime.selectModel(pattern, false);
    return { model: selection.model, apiKey: selection.apiKey };
  } catch {
    return undefined;
  }
}
