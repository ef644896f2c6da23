import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { OmpError } from "../../core/errors/omp-error.ts";
import { SHELLS, type Shell, VALUE_LISTS, type ValueList, generateCompletions } from "../program/completions.ts";
import { describeProgram } from "../program/program.ts";
import { writeStdout } from "../shared/write.ts";

export interface CompletionsFlags {
  list?: string;
}

/**
 * `omp completions bash|zsh|fish`: the script for that shell, the same the release archives carry;
 * `--list models|sessions|settings`: the words the scripts offer for a model, a session or a
 * setting, printed when the user presses TAB. A list that cannot be read prints nothing: a TAB
 * must never show an error in the middle of a command line.
 */
export async function runCompletions(shell: string | undefined, flags: CompletionsFlags): Promise<number> {
  if (flags.list !== undefined) {
    if (!(VALUE_LISTS as readonly string[]).includes(flags.list)) {
      throw new OmpError(`--list: got "${flags.list}", expected one of ${VALUE_LISTS.join(", ")}`, { exitCode: EXIT_USAGE });
    }
    const words = await valueList(flags.list as ValueList).catch(() => []);
    await writeStdout(words.length > 0 ? `${words.join("\n")}\n` : "");
    return 0;
  }
  if (shell === undefined || !(SHELLS as readonly string[]).includes(shell)) {
    const got = shell === undefined ? "no shell" : `"${shell}"`;
    throw new OmpError(`completions: got ${got}, expected ${SHELLS.join(", ")} (e.g. \`omp completions bash > ~/.local/share/bash-completion/completions/omp\`)`, {
      exitCode: EXIT_USAGE,
    });
  }
  await writeStdout(generateCompletions(describeProgram({ code: 0 }))[shell as Shell]);
  return 0;
}

async function valueList(kind: ValueList): Promise<string[]> {
  const cwd = process.cwd();
  const env = process.env;
  if (kind === "settings") return (await import("../../core/config/settings-keys.ts")).settingKeys();
  if (kind === "models") {
    const { loadModelsConfig } = await import("../../core/config/models.ts");
    const { knownModels } = await import("../../core/agent/models.ts");
    return knownModels(loadModelsConfig({ cwd, env }).config, env).map((model) => `${model.provider}/${model.id}`);
  }
  const { loadSettings } = await import("../../core/config/settings.ts");
  const { listSessions } = await import("../../core/session/listing.ts");
  const { projectSessionDirs } = await import("../../core/session/paths.ts");
  const sessionDir = loadSettings({ cwd, env }).settings.sessionDir;
  // Every dir -r reads, the original omp's included: a session TAB offers is one -r can resume.
  const sessions = listSessions(projectSessionDirs(cwd, { env, ...(sessionDir === undefined ? {} : { sessionDir }) }), { limit: 50 });
  return sessions.map((session) => session.id);
}
