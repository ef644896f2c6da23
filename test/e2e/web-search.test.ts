// web_search in the compiled omp against stand-ins on loopback for each provider, speaking that
// provider's wire format (path, method, query or body fields, and the auth header it checks):
// the results the model gets, and no web_search tool at all when no provider is configured.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { agentTestFile, modelRequests, runAgent, toolNamesOf, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { startStandin } from "../support/standin/index.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = { ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "sk-ant-test" };
const KEY = "search-key-123";

const seen: { provider: string; problem?: string }[] = [];
const unauthorized = () => Response.json({ error: "unauthorized" }, { status: 401 });

/** Each provider's answer, in its own format, after checking the request as that provider does. */
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request): Promise<Response> {
    const url = new URL(request.url);
    const header = (name: string) => request.headers.get(name);
    const body: any = request.method === "POST" ? await request.json() : undefined;
    switch (url.pathname) {
      case "/brave/res/v1/web/search":
        seen.push({ provider: "brave" });
        if (header("x-subscription-token") !== KEY) return unauthorized();
        if (url.searchParams.get("q") !== "bun sqlite wal" || url.searchParams.get("count") !== "3") return Response.json({ error: "bad query" }, { status: 422 });
        return Response.json({ type: "search", web: { type: "search", results: [{ title: "WAL mode in SQLite", url: "https://sqlite.org/wal.html", description: "Write-ahead logging <strong>WAL</strong> is...", page_age: "2024-05-01T00:00:00", age: "May 1, 2024" }] } });
      case "/exa/search":
        seen.push({ provider: "exa" });
        if (header("x-api-key") !== KEY) return unauthorized();
        if (request.method !== "POST" || body.query !== "bun sqlite wal" || body.numResults !== 3) return Response.json({ error: "bad body" }, { status: 400 });
        return Response.json({ requestId: "r1", results: [{ id: "x", title: "Exa: WAL", url: "https://exa.example/wal", publishedDate: "2024-02-03T00:00:00.000Z", text: "Exa found this about WAL." }] });
      case "/tavily/search":
        seen.push({ provider: "tavily" });
        if (header("authorization") !== `Bearer ${KEY}`) return unauthorized();
        if (body.query !== "bun sqlite wal" || body.max_results !== 3) return Response.json({ detail: "bad body" }, { status: 400 });
        return Response.json({ query: body.query, answer: null, results: [{ title: "Tavily: WAL", url: "https://tavily.example/wal", content: "Tavily content about WAL.", score: 0.9, published_date: "Mon, 01 Jan 2024" }], response_time: 0.5 });
      case "/perplexity/search":
        seen.push({ provider: "perplexity" });
        if (header("authorization") !== `Bearer ${KEY}`) return unauthorized();
        if (body.query !== "bun sqlite wal" || body.max_results !== 3) return Response.json({ error: "bad body" }, { status: 400 });
        return Response.json({ id: "p1", results: [{ title: "Perplexity: WAL", url: "https://pplx.example/wal", snippet: "Perplexity snippet.", date: "2024-03-04", last_updated: "2024-03-05" }] });
      case "/jina/":
        seen.push({ provider: "jina" });
        if (header("authorization") !== `Bearer ${KEY}`) return unauthorized();
        if (url.searchParams.get("q") !== "bun sqlite wal" || header("accept") !== "application/json") return Response.json({ code: 400 }, { status: 400 });
        return Response.json({ code: 200, status: 20000, data: [{ title: "Jina: WAL", url: "https://jina.example/wal", description: "Jina description.", date: "2024-06-07" }] });
      case "/kagi/api/v0/search":
        seen.push({ provider: "kagi" });
        if (header("authorization") !== `Bot ${KEY}`) return Response.json({ error: [{ code: 1, msg: "Unauthorized" }] }, { status: 401 });
        if (url.searchParams.get("q") !== "bun sqlite wal" || url.searchParams.get("limit") !== "3") return Response.json({ error: [{ msg: "bad" }] }, { status: 400 });
        return Response.json({ meta: { id: "k1", node: "us-east", ms: 100 }, data: [{ t: 0, rank: 1, url: "https://kagi.example/wal", title: "Kagi: WAL", snippet: "Kagi snippet.", published: "2024-07-08T00:00:00Z" }, { t: 1, list: ["sqlite wal vs journal"] }] });
      case "/searxng/search":
        seen.push({ provider: "searxng" });
        if (url.searchParams.get("format") !== "json" || url.searchParams.get("q") !== "bun sqlite wal") return new Response("Forbidden", { status: 403 });
        return Response.json({ query: "bun sqlite wal", number_of_results: 1, results: [{ url: "https://searx.example/wal", title: "SearXNG: WAL", content: "SearXNG content.", engine: "duckduckgo", publishedDate: null }], suggestions: [] });
      default:
        return new Response("not found", { status: 404 });
    }
  },
});
afterAll(() => server.stop(true));

async function searchWith(config: string, extraEnv: Record<string, string>, allow = ["--allow-host", "127.0.0.1"]) {
  const ws = workspace();
  mkdirSync(join(ws.home, ".omp", "agent"), { recursive: true });
  writeFileSync(join(ws.home, ".omp", "agent", "config.yml"), config);
  standin.setScript([{ toolCalls: [{ name: "web_search", arguments: { query: "bun sqlite wal", limit: 3 } }] }, { text: "done" }]);
  standin.requests.length = 0;
  // The stand-in providers are on loopback: the search host is allowed as the user would allow theirs.
  await runAgent(["-p", "--model", MODEL, ...allow, "go"], { home: ws.home, cwd: ws.repo, env: { ...env, ...extraEnv } });
  const requests = modelRequests(standin);
  return { tools: toolNamesOf("anthropic-messages", requests[0]!.body), result: requests[1] ? toolResultsOf("anthropic-messages", requests[1].body)[0] : undefined };
}

const CASES: [string, string, string, string][] = [
  ["brave", "BRAVE_API_KEY", "WAL mode in SQLite", "https://sqlite.org/wal.html"],
  ["exa", "EXA_API_KEY", "Exa: WAL", "Exa found this about WAL."],
  ["tavily", "TAVILY_API_KEY", "Tavily: WAL", "Tavily content about WAL."],
  ["perplexity", "PERPLEXITY_API_KEY", "Perplexity: WAL", "Date: 2024-03-04"],
  ["jina", "JINA_API_KEY", "Jina: WAL", "Jina description."],
  ["kagi", "KAGI_API_KEY", "Kagi: WAL", "Kagi snippet."],
];

describe("web_search", () => {
  test.each(CASES)("%s: key from %s, request in its format, results with title, URL, snippet and date", async (provider, variable, title, detail) => {
    const { tools, result } = await searchWith(`web:\n  search:\n    baseUrl: ${server.url.href}${provider}\n`, { [variable]: KEY });
    expect(tools).toContain("web_search");
    expect(seen.at(-1)?.provider).toBe(provider);
    expect(result!.isError).toBe(false);
    expect(result!.text).toContain("untrusted web content");
    expect(result!.text).toContain(`1. ${title}`);
    expect(result!.text).toContain(detail);
  });

  test("the provider's host is egress: unnamed, print mode refuses the query and says how to allow it; nothing is sent", async () => {
    const before = seen.length;
    const { result } = await searchWith("{}\n", { SEARXNG_URL: `${server.url.href}searxng` }, []);
    expect(result!.isError).toBe(true);
    expect(result!.text).toContain('web_search was not run: it would send the search query "bun sqlite wal" to 127.0.0.1');
    expect(result!.text).toContain("--allow-host 127.0.0.1");
    expect(seen.length).toBe(before);
  });

  test("SearXNG from SEARXNG_URL alone (the self-hosted, air-gapped choice)", async () => {
    const { result } = await searchWith("{}\n", { SEARXNG_URL: `${server.url.href}searxng` });
    expect(result!.text).toContain("1. SearXNG: WAL\n   https://searx.example/wal");
    expect(result!.text).toContain("SearXNG content.");
  });

  test("web.search.provider picks among several; a wrong key is reported as refused", async () => {
    const { result } = await searchWith(`web:\n  search:\n    provider: kagi\n    apiKey: wrong\n    baseUrl: ${server.url.href}kagi\n`, { BRAVE_API_KEY: KEY });
    expect(seen.at(-1)?.provider).toBe("kagi");
    expect(result!.isError).toBe(true);
    expect(result!.text).toContain("Kagi answered HTTP 401. The API key was refused");
  });

  test("no provider configured: web_search is not offered at all", async () => {
    const { tools } = await searchWith("{}\n", {});
    expect(tools).toContain("search_tool_bm25");
    expect(tools).not.toContain("web_search");
  });

  test("web.nativeSearch: an Anthropic model gets its server-side web_search; the answer keeps its citations as links; a configured provider takes precedence", async () => {
    const ws = workspace();
    mkdirSync(join(ws.home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(ws.home, ".omp", "agent", "config.yml"), "web:\n  nativeSearch: true\n");
    standin.setScript([{ webSearch: { query: "bun 1.2 release", results: [{ url: "https://bun.example/blog/bun-v1.2", title: "Bun 1.2" }] }, text: "Bun 1.2 added a built-in Postgres client." }]);
    standin.requests.length = 0;
    const run = await runAgent(["-p", "--model", MODEL, "what is new in bun 1.2"], { home: ws.home, cwd: ws.repo, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Bun 1.2 added a built-in Postgres client. [[1]](https://bun.example/blog/bun-v1.2)");
    const tools = modelRequests(standin)[0]!.body.tools;
    expect(tools[0]).toEqual({ type: "web_search_20250305", name: "web_search", max_uses: 5 });
    standin.setScript([{ text: "ok" }]);
    standin.requests.length = 0;
    await runAgent(["-p", "--model", MODEL, "x"], { home: ws.home, cwd: ws.repo, env: { ...env, BRAVE_API_KEY: KEY } });
    const withProvider = modelRequests(standin)[0]!.body.tools;
    expect(withProvider.some((tool: any) => tool.type === "web_search_20250305")).toBe(false);
    expect(withProvider.filter((tool: any) => tool.name === "web_search")).toHaveLength(1);
  });

  test("web.nativeSearch on OpenAI Responses: the hosted web_search tool is offered, url_citation annotations become links", async () => {
    const ws = workspace();
    mkdirSync(join(ws.home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(ws.home, ".omp", "agent", "config.yml"), "web:\n  nativeSearch: true\n");
    standin.setScript([{ webSearch: { query: "bun 1.2", results: [{ url: "https://bun.example/a", title: "A" }, { url: "https://bun.example/b", title: "B" }] }, text: "Two sources agree." }]);
    standin.requests.length = 0;
    const run = await runAgent(["-p", "--model", "openai/gpt-5", "what is new"], { home: ws.home, cwd: ws.repo, env: { OPENAI_BASE_URL: `${standin.url}/v1`, OPENAI_API_KEY: "sk-test" } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Two sources agree. [[1]](https://bun.example/a) [[2]](https://bun.example/b)");
    expect(modelRequests(standin)[0]!.body.tools[0]).toEqual({ type: "web_search" });
  });

  test("web.nativeSearch on Gemini, direct and on Vertex AI: the googleSearch grounding tool is sent, groundingMetadata's cited results become links", async () => {
    const ws = workspace();
    mkdirSync(join(ws.home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(ws.home, ".omp", "agent", "config.yml"), "web:\n  nativeSearch: true\n");
    const grounded = { webSearch: { query: "bun 1.2", results: [{ url: "https://bun.example/a", title: "A" }, { url: "https://bun.example/b", title: "B" }] }, text: "Bun 1.2 ships a Postgres client." };
    standin.setScript([grounded]);
    standin.requests.length = 0;
    const run = await runAgent(["-p", "--model", "google/gemini-4-carbon", "what is new"], { home: ws.home, cwd: ws.repo, env: { GEMINI_BASE_URL: standin.url, GEMINI_API_KEY: "gem-test" } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("Bun 1.2 ships a Postgres client. [[1]](https://bun.example/a) [[2]](https://bun.example/b)");
    const tools = modelRequests(standin)[0]!.body.tools;
    expect(tools[0]).toEqual({ googleSearch: {} });
    expect(tools[1].functionDeclarations.some((tool: any) => tool.name === "read")).toBe(true);

    // Vertex AI takes the Gemini body as it is, behind its own (checked) Google credentials.
    const user = { clientId: "omp.apps.googleusercontent.com", clientSecret: "gsecret", refreshToken: "grefresh" };
    const vertex = await startStandin({ cloud: { google: { clientEmail: "unused@x", publicKeyPem: "", project: "omp-project", location: "global", user } } });
    mkdirSync(join(ws.home, ".config", "gcloud"), { recursive: true });
    writeFileSync(
      join(ws.home, ".config", "gcloud", "application_default_credentials.json"),
      JSON.stringify({ type: "authorized_user", client_id: user.clientId, client_secret: user.clientSecret, refresh_token: user.refreshToken, token_uri: `${vertex.url}/token` }),
    );
    vertex.setScript([grounded]);
    const onVertex = await runAgent(["-p", "--model", "google-vertex/gemini-4-carbon", "what is new"], {
      home: ws.home,
      cwd: ws.repo,
      env: { GOOGLE_VERTEX_BASE_URL: vertex.url, GOOGLE_CLOUD_LOCATION: "global", GOOGLE_CLOUD_PROJECT: "omp-project" },
    }).finally(() => vertex.close());
    expect(onVertex.code).toBe(0);
    expect(onVertex.stdout).toContain("Bun 1.2 ships a Postgres client. [[1]](https://bun.example/a) [[2]](https://bun.example/b)");
    const request = modelRequests(vertex).at(-1)!;
    expect(request.path).toContain("/publishers/google/models/gemini-4-carbon:streamGenerateContent");
    expect(request.body.tools[0]).toEqual({ googleSearch: {} });
  });
});
