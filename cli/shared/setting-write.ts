import { type SettingTarget, setSetting, settingFile } from "../../core/config/settings-write.ts";

/**
 * What `omp config set` and the /settings screen both do: checks a model name, then writes the
 * value to the target's file. Returns the stored value and the file.
 */
export async function writeSettingValue(key: string, raw: string, target: SettingTarget): Promise<{ value: unknown; file: string }> {
  // A model omp cannot find would only fail at the next start, far from this typo.
  if (key === "model") await checkModel(raw);
  const value = setSetting(key, raw, target);
  return { value, file: settingFile(key, target) };
}

async function checkModel(pattern: string): Promise<void> {
  const { knownModels, resolveModel, withLocalModels } = await import("../../core/agent/models.ts");
  const { loadModelsConfig } = await import("../../core/config/models.ts");
  const env = process.env;
  const known = knownModels(loadModelsConfig({ cwd: process.cwd(), env }).config, env);
  try {
    resolveModel(pattern, known);
  } catch {
    resolveModel(pattern, await withLocalModels(known, env));
  }
}
