import type { Command } from "commander";
import { FEATURES } from "../../core/setup/features.ts";
import { THINKING_LEVELS } from "../../core/ai/model.ts";
import { SANDBOX_MODES } from "../../core/sandbox/policy.ts";
import { SESSION_MODES } from "../../core/session/modes.ts";
import { APPROVAL_MODES } from "../../core/tools/approval.ts";
import { OUTPUT_MODES } from "../options/agent-options.ts";

/**
 * Shell completions for bash, zsh and fish, generated from the commander program itself, so they
 * list exactly the commands and options `omp` has. Each shell gets the same model: walk the words
 * typed so far down the command tree, then offer that command's subcommands, or its options after
 * a `-`, or the values an option or argument takes (a fixed list, or one `omp completions --list`
 * prints at the moment of the TAB: models, sessions of the current folder, setting keys); anything
 * else (paths, patterns, messages) falls back to the shell's file completion.
 */

/** The lists `omp completions --list <kind>` prints, read when the user presses TAB. */
export const VALUE_LISTS = ["models", "sessions", "settings"] as const;
export type ValueList = (typeof VALUE_LISTS)[number];

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

/** What a value is completed from: fixed words, or a list omp prints then. */
type ValueSource = { words: readonly string[] } | { list: ValueList };

const MODELS: ValueSource = { list: "models" };

/** Option values by long flag, wherever the option appears. */
const OPTION_VALUES: Record<string, ValueSource> = {
  "--model": MODELS,
  "--smol": MODELS,
  "--slow": MODELS,
  "--plan": MODELS,
  "--resume": { list: "sessions" },
  "--fork": { list: "sessions" },
  "--thinking": { words: THINKING_LEVELS },
  // --approval-mode also takes the modes a session starts in (but not "default", which is no choice).
  "--approval-mode": { words: [...APPROVAL_MODES, ...SESSION_MODES.filter((mode) => mode !== "default")] },
  "--sandbox": { words: SANDBOX_MODES },
  "--mode": { words: OUTPUT_MODES },
  "--channel": { words: ["stable", "canary"] },
  "--sort": { words: ["path", "none"] },
  "--list": { words: VALUE_LISTS },
};

/** The first argument of these commands (by path), when it is not a subcommand or option. */
const ARGUMENT_VALUES: Record<string, ValueSource> = {
  "omp/config/get": { list: "settings" },
  "omp/config/set": { list: "settings" },
  "omp/config/unset": { list: "settings" },
  "omp/completions": { words: SHELLS },
  "omp/setup": { words: FEATURES.map((feature) => feature.id) },
};

interface OptionInfo {
  long: string;
  short?: string;
  takesValue: boolean;
  description: string;
  values?: ValueSource;
}

interface CommandInfo {
  /** `omp`, `omp/config`, `omp/config/set`, ... */
  path: string;
  subcommands: { name: string; description: string }[];
  options: OptionInfo[];
  argument?: ValueSource;
}

const HELP: OptionInfo = { long: "--help", short: "-h", takesValue: false, description: "show help" };

function walk(command: Command, path: string): CommandInfo[] {
  const options: OptionInfo[] = command.options
    .filter((option) => option.long && !option.hidden)
    .map((option) => {
      const takesValue = option.required || option.optional;
      const values = takesValue ? (option.argChoices ? { words: option.argChoices } : OPTION_VALUES[option.long!]) : undefined;
      return { long: option.long!, short: option.short, takesValue, description: option.description, ...(values ? { values } : {}) };
    });
  const info: CommandInfo = {
    path,
    subcommands: command.commands.map((sub) => ({ name: sub.name(), description: sub.description() })),
    options: [...options, HELP],
    ...(ARGUMENT_VALUES[path] ? { argument: ARGUMENT_VALUES[path] } : {}),
  };
  return [info, ...command.commands.flatMap((sub) => walk(sub, `${path}/${sub.name()}`))];
}

export type Completions = Record<Shell, string>;

const single = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const fishQuote = (text: string) => `'${text.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

/** A shell expression producing the source's words, one per line or separated by blanks. */
function wordsCommand(source: ValueSource): string {
  return "list" in source ? `omp completions --list ${source.list} 2>/dev/null` : `printf '%s\\n' ${source.words.map(single).join(" ")}`;
}

/** The option flags of `tree` that take a value, with what the value is completed from (`path:flag`). */
function valueFlags(tree: CommandInfo[]): { key: string; source?: ValueSource }[] {
  return tree.flatMap((node) =>
    node.options
      .filter((option) => option.takesValue)
      .flatMap((option) => [option.long, option.short].filter((flag): flag is string => !!flag).map((flag) => ({ key: `${node.path}:${flag}`, source: option.values }))),
  );
}

/** Case arms grouped by the command that produces the words (`a | b) body ;;`), the rest in one arm. */
function valueCases(flags: { key: string; source?: ValueSource }[], body: (source: ValueSource) => string, rest: string, indent: string): string {
  const bySource = new Map<string, { keys: string[]; source: ValueSource }>();
  const plain: string[] = [];
  for (const { key, source } of flags) {
    if (!source) {
      plain.push(key);
      continue;
    }
    const id = wordsCommand(source);
    const group = bySource.get(id) ?? { keys: [], source };
    group.keys.push(key);
    bySource.set(id, group);
  }
  const arms = [...bySource.values()].map(({ keys, source }) => `${indent}${keys.join(" | ")}) ${body(source)} ;;`);
  if (plain.length > 0) arms.push(`${indent}${plain.join(" | ")}) ${rest} ;;`);
  return arms.join("\n");
}

function bash(tree: CommandInfo[]): string {
  const descend = tree.slice(1).map((node) => node.path);
  const cases = tree
    .map((node) => {
      const words = node.options.flatMap((option) => [option.long, option.short ?? []]).flat();
      const argument = node.argument ? `; argument=${single(wordsCommand(node.argument))}` : "";
      return `    ${node.path}) subcommands=${single(node.subcommands.map((sub) => sub.name).join(" "))}; options=${single(words.join(" "))}${argument} ;;`;
    })
    .join("\n");
  const complete = (source: ValueSource) => `mapfile -t COMPREPLY < <(compgen -W "$(${wordsCommand(source)})" -- "$cur"); return`;
  return `# bash completion for omp, generated from omp's command definitions (omp completions bash).
_omp() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD - 1]} path=omp i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "$path/\${COMP_WORDS[i]}" in
      ${descend.join(" | ")}) path="$path/\${COMP_WORDS[i]}" ;;
    esac
  done
  COMPREPLY=()
  case "$path:$prev" in
${valueCases(valueFlags(tree), complete, "return", "    ")}
  esac
  local subcommands options argument=""
  case "$path" in
${cases}
  esac
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$options" -- "$cur")
  elif [[ -n $subcommands ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$subcommands" -- "$cur")
  elif [[ -n $argument && $prev != -* && \${COMP_WORDS[COMP_CWORD - 1]##*/} == "\${path##*/}" ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(eval "$argument")" -- "$cur")
  fi
}
complete -o default -o bashdefault -F _omp omp
`;
}

function zsh(tree: CommandInfo[]): string {
  const descend = tree.slice(1).map((node) => node.path);
  const describe = (name: string, description: string) => single(`${name.replace(/:/g, "\\:")}:${description}`);
  const cases = tree
    .map((node) => {
      const subs = node.subcommands.map((sub) => describe(sub.name, sub.description)).join(" ");
      const opts = node.options.flatMap((option) => [option.long, option.short ?? []].flat().map((flag) => describe(flag, option.description))).join(" ");
      const argument = node.argument ? `; argument=${single(wordsCommand(node.argument))}` : "";
      return `    ${node.path}) subcommands=(${subs}); options=(${opts})${argument} ;;`;
    })
    .join("\n");
  const complete = (source: ValueSource) => `values=(\${(f)"$(${wordsCommand(source)})"}); compadd -a values; return`;
  return `#compdef omp
# zsh completion for omp, generated from omp's command definitions (omp completions zsh).
_omp() {
  local cmdpath=omp i argument=""
  local -a subcommands options values
  for ((i = 2; i < CURRENT; i++)); do
    case "$cmdpath/\${words[i]}" in
      ${descend.join(" | ")}) cmdpath="$cmdpath/\${words[i]}" ;;
    esac
  done
  case "$cmdpath:\${words[CURRENT-1]}" in
${valueCases(valueFlags(tree), complete, "_files; return", "    ")}
  esac
  case "$cmdpath" in
${cases}
  esac
  if [[ $PREFIX == -* ]]; then
    _describe -t options option options
  elif (( \${#subcommands} )); then
    _describe -t commands command subcommands
  elif [[ -n $argument && \${words[CURRENT-1]} == "\${cmdpath##*/}" ]]; then
    values=(\${(f)"$(eval "$argument")"}); compadd -a values
  else
    _files
  fi
}
_omp "$@"
`;
}

function fish(tree: CommandInfo[]): string {
  const descend = tree.slice(1).map((node) => node.path);
  const lines: string[] = [];
  const fishWords = (source: ValueSource) => ("list" in source ? `(omp completions --list ${source.list} 2>/dev/null)` : source.words.join(" "));
  for (const node of tree) {
    const when = fishQuote(`test (__omp_path) = ${node.path}`);
    for (const sub of node.subcommands) lines.push(`complete -c omp -n ${when} -f -a ${sub.name} -d ${fishQuote(sub.description)}`);
    if (node.argument) lines.push(`complete -c omp -n ${when} -f -a ${fishQuote(fishWords(node.argument))}`);
    for (const option of node.options) {
      const short = option.short ? ` -s ${option.short.slice(1)}` : "";
      const values = option.values ? ` -x -a ${fishQuote(fishWords(option.values))}` : option.takesValue ? " -r" : "";
      lines.push(`complete -c omp -n ${when}${short} -l ${option.long.slice(2)}${values} -d ${fishQuote(option.description)}`);
    }
  }
  return `# fish completion for omp, generated from omp's command definitions (omp completions fish).
function __omp_path
    set -l path omp
    for word in (commandline -opc)[2..-1]
        switch "$path/$word"
            case ${descend.join(" ")}
                set path "$path/$word"
        end
    end
    echo $path
end
${lines.join("\n")}
`;
}

export function generateCompletions(program: Command): Completions {
  const tree = walk(program, "omp");
  return { bash: bash(tree), zsh: zsh(tree), fish: fish(tree) };
}
