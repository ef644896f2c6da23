import { OmpError } from "../errors/omp-error.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { gitAsync } from "../git/run.ts";

/**
 * git, always as an argument vector (never a shell string), never prompting: a marketplace or
 * plugin URL comes from a catalog someone else wrote.
 */
async function git(args: string[], cwd?: string): Promise<string> {
  const result = await gitAsync(args, { ...(cwd ? { cwd } : {}), network: true });
  if (!result.started) throw new OmpError("git is not installed or not on PATH; install git, or add the marketplace from a local folder", { cause: result.err });
  if (!result.ok) throw new OmpError(`git ${args[0]} failed: ${result.err.trim().split("\n").slice(-3).join(" ") || `exit ${result.code}`}`);
  return result.out.toString("utf8").trim();
}

/** A URL git would read as an option is refused outright. */
export function checkGitUrl(url: string): string {
  if (url.startsWith("-") || /[\0\n\r]/.test(url)) throw new OmpError(`"${url}" is not a git URL`, { exitCode: EXIT_USAGE });
  return url;
}

/** `OMP_GITHUB_URL` points `owner/repo` sources at a GitHub Enterprise host or a mirror. */
export const githubUrl = (repo: string) => `${(process.env.OMP_GITHUB_URL ?? "https://github.com").replace(/\/$/, "")}/${repo}.git`;

const HOSTS: Record<string, string> = { gitlab: "gitlab.com", bitbucket: "bitbucket.org", codeberg: "codeberg.org", sourcehut: "git.sr.ht", srht: "git.sr.ht" };

/**
 * npm's hosted-git shorthands, `github:user/repo#ref` (also `gitlab:`, `bitbucket:`, …), as a clone
 * URL with the ref kept after `#`; GitHub's go through githubUrl so a mirror applies to them too.
 */
export function gitShorthand(target: string): string {
  const match = /^(\w+):([\w.-]+\/[\w.-]+?)(?:\.git)?(#[\w./-]+)?$/.exec(target);
  if (!match || (match[1] !== "github" && !HOSTS[match[1]!])) throw new OmpError(`"${target}" is not a git shorthand such as github:user/repo#ref`, { exitCode: EXIT_USAGE });
  if (match[1] === "github") return `${githubUrl(match[2]!)}${match[3] ?? ""}`;
  const owner = match[1] === "sourcehut" || match[1] === "srht" ? `~${match[2]}` : match[2];
  return `https://${HOSTS[match[1]!]}/${owner}.git${match[3] ?? ""}`;
}

/** A shallow clone of `url` at `ref` (a branch or tag), then `sha` checked out when pinned. */
export async function cloneRepo(url: string, dest: string, pin: { ref?: string; sha?: string } = {}): Promise<string> {
  checkGitUrl(url);
  if (pin.sha) {
    // A pinned commit may be anywhere in history: a full clone, then exactly that commit.
    await git(["clone", "--quiet", ...(pin.ref ? ["--branch", pin.ref] : []), "--", url, dest]);
    if (!/^[0-9a-f]{7,40}$/i.test(pin.sha)) throw new OmpError(`"${pin.sha}" is not a commit sha`);
    await git(["-c", "advice.detachedHead=false", "checkout", "--quiet", pin.sha, "--"], dest);
  } else {
    await git(["clone", "--quiet", "--depth", "1", ...(pin.ref ? ["--branch", pin.ref] : []), "--", url, dest]);
  }
  return headSha(dest);
}

export const headSha = (dir: string) => git(["rev-parse", "HEAD"], dir);

/** Brings a clone to its remote's newest commit on the branch it tracks. */
export async function pullRepo(dir: string): Promise<string> {
  await git(["fetch", "--quiet", "--depth", "1", "origin"], dir);
  await git(["reset", "--quiet", "--hard", "FETCH_HEAD"], dir);
  return headSha(dir);
}
