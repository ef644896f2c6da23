import { homeDir } from "../paths.ts";
import { buildPolicy, type SandboxPolicy, type SandboxSettings } from "./policy.ts";

/** A session's sandbox policy for its commands and project servers; undefined when the sandbox is off. */
export function sessionPolicy(settings: SandboxSettings, cwd: string, addDirs: readonly string[], env: NodeJS.ProcessEnv): SandboxPolicy | undefined {
  if (settings.mode === "off") return undefined;
  return buildPolicy({ settings, cwd, addDirs: [...addDirs], home: homeDir(), env });
}
