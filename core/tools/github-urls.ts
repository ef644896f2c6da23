import { errorResult } from "./format.ts";
import type { ReadRange } from "./internal-urls.ts";
import { readTextOf } from "./read.ts";
import type { ReadDetails } from "./read-details.ts";
import type { ToolContext, ToolResult } from "./types.ts";
import { GithubError, githubApi } from "../github/api.ts";
import { parseRepo, repoOrCurrent, type RepoRef } from "../github/repo.ts";
import { issueView, listing, pullDiff, pullView } from "../github/views.ts";

/**
 * `issue://` and `pr://` in read, as the original omp has them: `issue://<N>` or
 * `issue://<owner>/<repo>/<N>` (`?comments=0` leaves comments out), `pr://<N>` likewise with
 * `/diff`, `/diff/<i>` and `/diff/all`; bare or with only `<owner>/<repo>`, a listing
 * (`?state=`, `?limit=`, `?author=`, `?label=`). A number alone means the checkout's repository.
 */
export async function readGithubUrl(url: string, range: ReadRange, context: ToolContext): Promise<ToolResult<ReadDetails>> {
  const kind = url.toLowerCase().startsWith("pr://") ? "pr" : "issue";
  try {
    const text = await resolve(kind, url, context);
    return readTextOf(url, text, range);
  } catch (error) {
    if (error instanceof GithubError) return errorResult(error.message);
    throw error;
  }
}

async function resolve(kind: "issue" | "pr", url: string, context: ToolContext): Promise<string> {
  const rest = url.slice(url.indexOf("://") + 3);
  const [pathPart = "", queryPart = ""] = rest.split("?", 2);
  const query = new URLSearchParams(queryPart);
  const parts = pathPart.split("/").filter(Boolean);
  const { webHost } = githubApi(process.env);
  let ref: RepoRef | undefined;
  let tail = parts;
  if (parts.length >= 2 && !/^\d+$/.test(parts[0]!)) {
    ref = parseRepo(`${parts[0]}/${parts[1]}`);
    tail = parts.slice(2);
  }
  const repo = () => ref ?? repoOrCurrent(undefined, context.cwd, webHost);
  if (tail.length === 0) {
    const limit = query.get("limit");
    if (limit !== null && !/^\d+$/.test(limit)) throw new GithubError("bad-input", `limit=${limit} is not a number.`);
    return listing(context, repo(), kind, {
      ...(query.get("state") ? { state: query.get("state")! } : {}),
      ...(limit ? { limit: Number(limit) } : {}),
      ...(query.get("author") ? { author: query.get("author")! } : {}),
      ...(query.get("label") ? { label: query.get("label")! } : {}),
    });
  }
  const [number, sub, part, ...extra] = tail;
  const usage = kind === "pr" ? "pr://<N>, pr://<owner>/<repo>/<N>, with /diff, /diff/<i> or /diff/all" : "issue://<N> or issue://<owner>/<repo>/<N>";
  if (!/^\d+$/.test(number!) || extra.length > 0 || (sub !== undefined && (kind !== "pr" || sub !== "diff"))) {
    throw new GithubError("bad-input", `${url} is not ${kind === "pr" ? "a pull request" : "an issue"} address: use ${usage}.`);
  }
  const withComments = query.get("comments") !== "0";
  if (sub === "diff") return pullDiff(context, repo(), Number(number), part);
  return kind === "pr" ? pullView(context, repo(), Number(number), withComments) : issueView(context, repo(), Number(number), withComments);
}
