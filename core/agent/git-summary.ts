/** A few lines about the repository for the system prompt; empty outside git or when git is missing. */
export function gitSummary(cwd: string): string {
  const git = (...args: string[]): string | null => {
    try {
      const result = Bun.spawnSync(["git", ...args], { cwd, stdout: "pipe", stderr: "ignore", env: { ...process.env, GIT_OPTIONAL_LOCKS: "0" } });
      return result.exitCode === 0 ? result.stdout.toString().trimEnd() : null;
    } catch {
      return null;
    }
  };
  const branch = git("rev-parse", "--abbrev-ref", "HEAD");
  if (branch === null) return "";
  const status = git("status", "--short") ?? "";
  const changed = status ? status.split("\n") : [];
  const log = git("log", "--oneline", "-5") ?? "";
  const lines = [`Branch: ${branch}`];
  lines.push(changed.length === 0 ? "Working tree: clean" : `Working tree: ${changed.length} changed path(s)\n${changed.slice(0, 20).join("\n")}${changed.length > 20 ? "\n…" : ""}`);
  if (log) lines.push(`Recent commits:\n${log}`);
  return lines.join("\n");
}
