import { gitOut } from "./git.ts";

/** The whole diff a model is given at most; beyond it files are summarised by their line counts. */
export const DIFF_BUDGET_CHARS = 60_000;
/** No single file takes more than this share of the budget when several changed. */
const MIN_FILE_CHARS = 2_000;

/** Lock files and build output: named in the prompt with their line counts, their text never sent. */
const GENERATED_NAMES = new Set([
  "package-lock.json",
  "npm-shrinkwrap.json",
  "yarn.lock",
  "pnpm-lock.yaml",
  "bun.lock",
  "bun.lockb",
  "Cargo.lock",
  "go.sum",
  "poetry.lock",
  "uv.lock",
  "Pipfile.lock",
  "composer.lock",
  "Gemfile.lock",
  "flake.lock",
]);
const GENERATED_PATTERNS = [/\.min\.(js|css)$/, /\.map$/, /(^|\/)(dist|build|vendor|node_modules|__generated__)\//, /\.(pb|generated)\.\w+$/];
const GENERATED_MARKER = /@generated|DO NOT EDIT|Code generated .* DO NOT EDIT/;
/** Files that hold credentials by their nature: named with their line counts, their text never sent to a model. */
const SECRET_FILE = /(^|\/)(\.env(\.(?!example$|sample$|template$)[^/]+)?|[^/]*\.(pem|key|p12|pfx|jks|keystore)|id_(rsa|dsa|ecdsa|ed25519)|\.npmrc|\.pypirc|\.netrc|\.git-credentials|credentials(\.json)?)$/;

export interface StagedFile {
  path: string;
  /** Lines added and removed; undefined for a binary file. */
  added?: number;
  removed?: number;
  kind: "text" | "binary" | "generated" | "secret";
  /** The file's diff as sent (possibly cut), for text files. */
  diff?: string;
  /** Characters of its diff left out to stay within the budget. */
  omitted?: number;
}

export interface StagedChanges {
  files: StagedFile[];
  /** `git diff --stat`-like summary line. */
  summary: string;
}

/**
 * The staged changes (`--cached`), or with `all` every change to the work tree against HEAD
 * (untracked files counted as added), as a model should see them: each text file's diff within a
 * fair share of the budget, binary, generated and credential files named only, secrets redacted.
 */
export function stagedChanges(root: string, options: { all?: boolean; hasHead: boolean; redact?: (text: string) => string }): StagedChanges {
  const base = options.all ? (options.hasHead ? ["HEAD"] : []) : ["--cached"];
  const diffArgs = ["diff", "--no-ext-diff", "--no-textconv", "--no-color", "-M", ...base];
  // Before the first commit `git diff` with nothing names the index against the work tree: the staged files are the whole tree.
  const numstat = options.all && !options.hasHead ? [] : parseNumstat(gitOut(root, [...diffArgs, "--numstat", "-z"]));
  if (options.all) {
    for (const path of gitOut(root, ["ls-files", "--others", "--exclude-standard", "-z"]).split("\0").filter(Boolean)) numstat.push(untrackedStat(root, path));
    if (!options.hasHead) for (const path of gitOut(root, ["ls-files", "-z"]).split("\0").filter(Boolean)) numstat.push(untrackedStat(root, path));
  }
  const files: StagedFile[] = numstat.map((stat) => ({ ...stat, kind: SECRET_FILE.test(stat.path) ? "secret" : stat.added === undefined ? "binary" : isGeneratedPath(stat.path) ? "generated" : "text" }));
  const text = files.filter((file) => file.kind === "text");
  const share = Math.max(MIN_FILE_CHARS, Math.floor(DIFF_BUDGET_CHARS / Math.max(1, text.length)));
  let left = DIFF_BUDGET_CHARS;
  for (const file of text) {
    // Known secret values and credential-shaped text never leave in a diff (the session's Redactor).
    const diff = (options.redact ?? ((text: string) => text))(fileDiff(root, diffArgs, file.path, options));
    if (GENERATED_MARKER.test(diff.slice(0, 2_000))) {
      file.kind = "generated";
      continue;
    }
    const room = Math.min(share, left);
    file.diff = diff.length > room ? diff.slice(0, Math.max(0, room)) : diff;
    if (diff.length > room) file.omitted = diff.length - room;
    left -= file.diff.length;
  }
  const added = files.reduce((sum, file) => sum + (file.added ?? 0), 0);
  const removed = files.reduce((sum, file) => sum + (file.removed ?? 0), 0);
  return { files, summary: `${files.length} file${files.length === 1 ? "" : "s"} changed, ${added} insertion(s)(+), ${removed} deletion(s)(-)` };
}

function isGeneratedPath(path: string): boolean {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return GENERATED_NAMES.has(name) || GENERATED_PATTERNS.some((pattern) => pattern.test(path));
}

type Stat = { path: string; added?: number; removed?: number };

/** `--numstat -z`: `added\tremoved\tpath\0`, or for a rename `added\tremoved\t\0old\0new\0`; `-` counts mean binary. */
function parseNumstat(out: string): Stat[] {
  const parts = out.split("\0");
  const stats: Stat[] = [];
  for (let i = 0; i < parts.length; i++) {
    const record = parts[i]!;
    if (record === "") continue;
    const [added, removed, path] = record.split("\t");
    const name = path === "" ? parts[(i += 2)]! : path!;
    stats.push(added === "-" ? { path: name } : { path: name, added: Number(added), removed: Number(removed) });
  }
  return stats;
}

function untrackedStat(root: string, path: string): Stat {
  // `diff --no-index` exits 1 when the files differ, as they do here.
  const out = gitOut(root, ["diff", "--no-index", "--no-ext-diff", "--no-textconv", "--numstat", "-z", "--", "/dev/null", path], [0, 1]).split("\t");
  return out[0] === "-" ? { path } : { path, added: Number(out[0] ?? 0), removed: 0 };
}

function fileDiff(root: string, diffArgs: string[], path: string, options: { all?: boolean; hasHead: boolean }): string {
  const tracked = gitOut(root, [...diffArgs, "--", path]);
  if (tracked !== "" || !options.all) return tracked;
  // An untracked file under --all: its whole text as an addition.
  return gitOut(root, ["diff", "--no-index", "--no-ext-diff", "--no-textconv", "--no-color", "--", "/dev/null", path], [0, 1]);
}
