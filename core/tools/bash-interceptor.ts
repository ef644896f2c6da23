/**
 * `bashInterceptor.enabled`: a bash command that only does what a dedicated tool does better (read
 * a file, search, list files, edit in place, write a file) is refused with the tool to use. The
 * dedicated tools page long files, respect .gitignore, record what was read for edits and show
 * diffs; a `cat` in bash does none of that. Only plain commands are matched (no pipes, no
 * chains), so `cat x | jq` or `grep -c a f && make` still run, and only when the session has the
 * suggested tool.
 */

interface Rule {
  tool: string;
  what: string;
  pattern: RegExp;
}

const RULES: readonly Rule[] = [
  { tool: "read", what: "reads a file", pattern: /^(cat|head|tail|less|more|bat|nl)(\s+-\S+)*\s+[^\s<>]+(\s+[^\s<>]+)*$/ },
  { tool: "grep", what: "searches file contents", pattern: /^(grep|egrep|fgrep|rg|ag|ack)\s+[^<>]+$/ },
  { tool: "find", what: "lists files by name", pattern: /^(find|fd|fdfind)(\s+[^<>]+)?$/ },
  { tool: "edit", what: "edits a file in place", pattern: /^(sed|perl)\s+(\S+\s+)*(-[a-zA-Z]*i\S*|--in-place\S*)\s/ },
  { tool: "write", what: "writes a file", pattern: /^(echo|printf|cat)\b[^<>]*(<<-?\s*['"]?\w+['"]?\s*)?>{1,2}\s*(?!\/dev\/)[^\s>&]+(\s*<<-?\s*['"]?\w+['"]?)?[\s\S]*$/ },
];

/** The command without a leading `cd <dir> &&`, which is where it runs rather than what it does. */
function core(command: string): string {
  return command.trim().replace(/^cd\s+("[^"]*"|'[^']*'|\S+)\s*&&\s*/, "");
}

/** Whether the command chains or pipes commands (first line only: a heredoc's body is data). */
function compound(command: string): boolean {
  const first = command.split("\n")[0]!;
  return /\||&&|;|\$\(|`/.test(first.replace(/'[^']*'|"[^"]*"/g, ""));
}

/** The refusal for `command`, or undefined when it may run; `has` says whether the session has a tool. */
export function interceptBash(command: string, has: (tool: string) => boolean): string | undefined {
  const plain = core(command);
  if (compound(plain)) return undefined;
  const firstLine = plain.split("\n")[0]!;
  for (const rule of RULES) {
    const subject = rule.tool === "write" ? plain : firstLine;
    if (rule.tool !== "write" && plain.includes("\n")) continue;
    if (!rule.pattern.test(subject) || !has(rule.tool)) continue;
    return `Blocked: this command ${rule.what}; use the ${rule.tool} tool instead (the user's setting bashInterceptor.enabled refuses such commands in bash). Command: ${firstLine}`;
  }
  return undefined;
}
