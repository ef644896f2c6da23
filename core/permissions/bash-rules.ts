/**
 * Claude Code's `Bash(...)` rule patterns against command lines: the one matcher behind a
 * command's `allowed-tools` (its !`cmd` lines) and settings.json's `permissions` rules.
 *
 * A line is judged command by command: `a && b`, `a; b`, `a | b`, subshells and `$(...)` are
 * split apart, wrappers (`sudo`, `env X=1`, `nohup`, `bash -c '...'`) are looked through, so
 * `Bash(rm:*)` denies `echo hi && sudo rm -rf x` and `Bash(git status:*)` allows
 * `git status && git diff` only when `git diff` is allowed too.
 */

/** `rm:*` and `git status *`: that command with any arguments; `npm test`: exactly that; other `*`: anything. */
export function commandMatches(pattern: string, command: string): boolean {
  const trimmed = pattern.trim();
  if (trimmed === "" || trimmed === "*") return true;
  const prefix = /^(.*?)(?::\*| \*)$/s.exec(trimmed);
  if (prefix) {
    const head = prefix[1]!.trim();
    if (command === head || command.startsWith(`${head} `)) return true;
  }
  if (!trimmed.includes("*")) return command === trimmed;
  const regex = new RegExp(`^${trimmed.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*")}$`, "s");
  return regex.test(command);
}

/** Runs commands no pattern sees (substitution) or writes files no pattern names (a redirection); `2>&1` is fine. */
const UNSEEN = /\$\(|`|[<>]/;

export function hasUnseenParts(line: string): boolean {
  return UNSEEN.test(line.replace(/\d*>&\d/g, "").replace(/[0-9]*>\s*\/dev\/null/g, ""));
}

/** The commands of a chain, split outside quotes, each trimmed. */
export function splitChain(command: string): string[] {
  const parts: string[] = [];
  let current = "";
  let quote: string | undefined;
  for (let i = 0; i < command.length; i++) {
    const char = command[i]!;
    if (quote) {
      if (char === quote) quote = undefined;
      current += char;
      continue;
    }
    if (char === "'" || char === '"') {
      quote = char;
      current += char;
      continue;
    }
    const two = command.slice(i, i + 2);
    if (two === "&&" || two === "||") {
      parts.push(current);
      current = "";
      i++;
      continue;
    }
    if (char === ";" || char === "|" || char === "\n" || (char === "&" && command[i + 1] !== ">" && command[i - 1] !== ">")) {
      parts.push(current);
      current = "";
      continue;
    }
    current += char;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter(Boolean);
}

const WRAPPERS = new Set(["sudo", "doas", "command", "builtin", "exec", "nohup", "time", "nice", "env", "xargs", "timeout", "stdbuf"]);
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh"]);

function unquote(text: string): string {
  const value = text.trim();
  if (value.length >= 2 && (value[0] === "'" || value[0] === '"') && value.endsWith(value[0])) return value.slice(1, -1);
  return value;
}

/**
 * Every simple command a line may run, for deny and ask rules: each part of the chain, with
 * subshell brackets, leading `VAR=x` assignments and wrappers removed (the wrapped command is
 * listed as well as the whole), `$(...)` and backtick bodies, and `sh -c '...'` scripts.
 */
export function commandsOf(line: string, depth = 0): string[] {
  const found: string[] = [];
  if (depth > 4) return [line.trim()];
  for (const inner of line.matchAll(/\$\(([^()]*)\)|`([^`]*)`/g)) found.push(...commandsOf(inner[1] ?? inner[2] ?? "", depth + 1));
  for (let part of splitChain(line)) {
    part = part.replace(/^[({\s]+/, "").replace(/[)}\s]+$/, "").trim();
    if (!part) continue;
    found.push(part);
    let words = part;
    for (;;) {
      const assignment = /^[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|"[^"]*"|\S*)\s+/.exec(words);
      if (assignment) {
        words = words.slice(assignment[0].length);
        found.push(words);
        continue;
      }
      const first = /^(\S+)\s+(.*)$/s.exec(words);
      if (!first) break;
      const name = first[1]!.replace(/^.*\//, "");
      if (SHELLS.has(name)) {
        const script = /^-\w*c\w*\s+(.*)$/s.exec(first[2]!);
        if (script) found.push(...commandsOf(unquote(script[1]!), depth + 1));
        break;
      }
      if (!WRAPPERS.has(name)) break;
      // The wrapper's own options (`sudo -u x`, `timeout 5`, `env -i`) cannot be told from the
      // command's words without knowing each wrapper: every word-suffix counts, so a deny errs
      // on the side of refusing.
      const rest = first[2]!.trim().split(/\s+/);
      for (let i = 0; i < rest.length; i++) found.push(rest.slice(i).join(" "));
      break;
    }
  }
  return [...new Set(found.map((command) => command.trim()).filter(Boolean))];
}

/**
 * Commands Claude Code runs without asking, read-only by nature: the `!` lines of Anthropic's own
 * /commit (`git diff HEAD`, `git log --oneline -10`, `git branch --show-current`) rely on it.
 */
const READ_ONLY = new Set(["pwd", "ls", "whoami", "cat", "head", "tail", "wc", "which", "uname", "id", "true", "false", "basename", "dirname", "realpath", "stat", "du", "df"]);
const GIT_READ_ONLY = new Set(["status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog", "remote", "config --get", "tag --list", "stash list", "merge-base", "cat-file"]);
const GIT_BRANCH_FLAGS = new Set(["--show-current", "-a", "-r", "--list", "-v", "-vv", "--all", "--remotes", "--no-color", "--color"]);

/** Searches (and a few listings) are read-only unless a word makes them run or write something. */
const SEARCHES: Record<string, (word: string) => boolean> = {
  grep: () => true,
  egrep: () => true,
  fgrep: () => true,
  // --pre runs a program on every file searched.
  rg: (word) => word !== "--pre" && !word.startsWith("--pre="),
  find: (word) => !/^-(exec|execdir|ok|okdir|delete|fprint0?|fprintf|fls)$/.test(word),
  // Read-only too, unless told to write: tree's output file, date's clock, file's compiled magic, a new hostname.
  tree: (word) => !/^(-o|--output)/.test(word) && !/^-[^-]*o/.test(word),
  date: (word) => !/^(-s|--set)/.test(word) && !/^-[^-]*s/.test(word),
  file: (word) => word !== "-C" && word !== "--compile",
  hostname: (word) => word.startsWith("-") && !/^-(F|-file|b|-boot)/.test(word),
};

export function isReadOnlyCommand(command: string): boolean {
  if (hasUnseenParts(command)) return false;
  const words = command.trim().split(/\s+/);
  const [name, sub, ...rest] = words;
  if (!name) return false;
  if (READ_ONLY.has(name)) return true;
  const search = SEARCHES[name];
  if (search) return words.slice(1).every(search);
  if (name !== "git" || !sub) return false;
  if (sub === "branch") return rest.every((word) => GIT_BRANCH_FLAGS.has(word));
  if (sub === "remote") return rest.every((word) => word === "-v" || word === "--verbose");
  return GIT_READ_ONLY.has(sub) || GIT_READ_ONLY.has(`${sub} ${rest[0] ?? ""}`);
}
