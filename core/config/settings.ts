import { resolve } from "node:path";
import { expandHome, globalConfigPath, projectConfigPath } from "../paths.ts";
import { configError, validateConfig } from "./config-error.ts";
import { deepMerge, hasPath } from "./merge.ts";
import { Settings, type SettingsInput } from "./settings-schema.ts";
import { type Mapping, readYamlMapping } from "./yaml-file.ts";

export type LayerKind = "global" | "project" | "overlay" | "runtime";

/** One source of settings, as written (without defaults). */
export interface SettingsLayer {
  kind: LayerKind;
  /** The file the values came from; absent for runtime overrides. */
  path?: string;
  values: Mapping;
}

export interface LoadSettingsOptions {
  /** The project directory whose `.omp/config.yml` applies; default the process's working directory. */
  cwd?: string;
  /** `--config` files in command-line order (later wins); relative to `cwd`, `~` expanded. Each must exist. */
  overlays?: string[];
  /** Values from flags such as `--model` or `--approval-mode`: highest precedence, never written anywhere. */
  runtime?: SettingsInput;
  env?: NodeJS.ProcessEnv;
}

export interface LoadedSettings {
  settings: Settings;
  /** Lowest precedence first: global, project, overlays, runtime (only those present). */
  layers: SettingsLayer[];
  /** The layer the effective value of a dotted key comes from; undefined when it is the default. */
  sourceOf(key: string): SettingsLayer | undefined;
}

/**
 * The effective settings: defaults ← global config.yml ← project .omp/config.yml ← `--config`
 * overlays ← runtime overrides. Each layer is validated on its own first, so an error names the
 * file that has it. Throws OmpError (exit 2) on a missing overlay, bad YAML or an invalid value.
 */
export function loadSettings(options: LoadSettingsOptions = {}): LoadedSettings {
  const cwd = resolve(options.cwd ?? process.cwd());
  const layers: SettingsLayer[] = [];
  const addFile = (kind: LayerKind, path: string, required: boolean) => {
    const values = readYamlMapping(path);
    if (values === undefined) {
      if (required) throw configError(path, ["file not found (given with --config)"]);
      return;
    }
    validateConfig(Settings, values, path);
    layers.push({ kind, path, values });
  };

  addFile("global", globalConfigPath(options.env), false);
  addFile("project", projectConfigPath(cwd), false);
  for (const overlay of options.overlays ?? []) addFile("overlay", resolve(cwd, expandHome(overlay)), true);
  if (options.runtime) {
    validateConfig(Settings, options.runtime, "command-line options");
    layers.push({ kind: "runtime", values: options.runtime as Mapping });
  }

  const merged = layers.reduce<Mapping>((acc, layer) => deepMerge(acc, layer.values), {});
  const settings = validateConfig(Settings, merged, "merged settings");
  return {
    settings,
    layers,
    sourceOf(key) {
      const path = key.split(".");
      return layers.findLast((layer) => hasPath(layer.values, path));
    },
  };
}
