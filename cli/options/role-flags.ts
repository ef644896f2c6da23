import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { OmpError } from "../../core/errors/omp-error.ts";

const ROLE_FLAGS = [
  ["smol", "PI_SMOL_MODEL"],
  ["slow", "PI_SLOW_MODEL"],
  ["plan", "PI_PLAN_MODEL"],
] as const;

/** `--smol/--slow/--plan <model>`, else the original omp's PI_*_MODEL variables: role models over config.yml's for this run. */
export function roleFlags(flags: { smol?: string; slow?: string; plan?: string }, env: NodeJS.ProcessEnv): Record<string, string> | undefined {
  const roles: Record<string, string> = {};
  for (const [role, variable] of ROLE_FLAGS) {
    const value = (flags[role] ?? env[variable])?.trim();
    if (value) roles[role] = value;
  }
  return Object.keys(roles).length > 0 ? roles : undefined;
}

/** `--models a,b,c`: the patterns, in order. */
export function modelList(text: string): string[] {
  const patterns = text
    .split(",")
    .map((pattern) => pattern.trim())
    .filter(Boolean);
  if (patterns.length === 0) throw new OmpError("--models: no model given; list model patterns separated by commas, e.g. --models sonnet,gpt-5", { exitCode: EXIT_USAGE });
  return patterns;
}
