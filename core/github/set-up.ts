/** Whether the user set up GitHub (a token or host in the environment, or gh installed): the github tool is offered then, as the original offers it when gh is there. */
export function githubSetUp(env: Record<string, string | undefined>): boolean {
  return ["GITHUB_TOKEN", "GH_TOKEN", "GITHUB_API_URL", "GH_HOST"].some((name) => Boolean(env[name]?.trim())) || Bun.which("gh", { PATH: env.PATH ?? "" }) !== null;
}
