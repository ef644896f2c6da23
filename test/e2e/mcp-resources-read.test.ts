// MCP resources through the compiled omp: mcp_resources lists them as mcp://<server>/<uri> paths
// and the model reads them with `read`, as it reads files: server-everything's text and blob
// resources, our edge server's image, binary and long text; failures say what to do instead.
import { describe, expect, test } from "bun:test";
import { agentTestFile, modelRequests, runAgent, toolNamesOf, toolResultsOf, workspace } from "../support/agent-harness.ts";
import { edgeServer, everythingServer, writeUserMcp } from "../support/mcp/fixtures.ts";

const standin = await agentTestFile();
const MODEL = "anthropic/claude-sonnet-4-5";
const env = () => ({ ANTHROPIC_BASE_URL: standin.url, ANTHROPIC_API_KEY: "omptest-mcp-key" });

function run(home: string, cwd: string) {
  standin.requests.length = 0;
  return runAgent(["-p", "--model", MODEL, "go"], { home, cwd, env: env() });
}

const read = (id: string, path: string, extra: Record<string, unknown> = {}) => ({ id, name: "read", arguments: { path, ...extra } });

/** The tool_result blocks of a request as sent, images included. */
function wireResults(index: number): any[] {
  return modelRequests(standin)[index]!.body.messages.flatMap((m: any) => (Array.isArray(m.content) ? m.content.filter((b: any) => b.type === "tool_result") : []));
}

describe("MCP resources through read", () => {
  test("mcp_resources lists mcp:// paths; read gets text paged like a file, a blob's text, an image, a described binary; errors name what exists", async () => {
    const { home, repo } = workspace();
    writeUserMcp(home, { everything: everythingServer(), edge: edgeServer("resources") });
    const doc = "mcp://everything/demo://resource/static/document/architecture.md";
    standin.setScript([
      { toolCalls: [{ id: "list", name: "mcp_resources", arguments: {} }] },
      {
        toolCalls: [
          read("doc", doc),
          read("text", "mcp://everything/demo://resource/dynamic/text/3"),
          read("blob", "mcp://everything/demo://resource/dynamic/blob/2"),
          read("image", "mcp://edge/pic://pixel.png"),
          read("binary", "mcp://edge/bin://data"),
          read("long", "mcp://edge/text://long"),
          read("tail", "mcp://edge/text://long", { offset: 2499 }),
          read("server", "mcp://nosuch/demo://x"),
          read("missing", "mcp://everything/demo://resource/nope"),
          read("bare", "mcp://everything"),
        ],
      },
      { text: "done" },
    ]);
    const result = await run(home, repo);
    expect(result.code).toBe(0);
    expect(result.stdout).toBe("done\n");

    const tools = toolNamesOf("anthropic-messages", modelRequests(standin)[0]!.body);
    expect(tools).toContain("mcp_resources");
    const readTool = modelRequests(standin)[0]!.body.tools.find((t: any) => t.name === "read");
    expect(readTool.description).toContain("mcp://<server>/<resource uri>");

    const [listing] = toolResultsOf("anthropic-messages", modelRequests(standin)[1]!.body);
    expect(listing!.text).toContain(`${doc} — architecture.md (text/markdown)`);
    expect(listing!.text).toContain("mcp://everything/demo://resource/dynamic/text/{resourceId} — template: Dynamic Text Resource");
    expect(listing!.text).toContain("mcp://edge/pic://pixel.png — pic://pixel.png (image/png)");

    const results = Object.fromEntries(toolResultsOf("anthropic-messages", modelRequests(standin)[2]!.body).map((r) => [r.id, r]));
    expect(results.doc!.isError).toBe(false);
    expect(results.doc!.text).toMatch(/^1\t# Everything Server – Architecture\n/);
    expect(results.text!.text).toContain("Resource 3: This is a plaintext resource created at");
    // server-everything sends this one as a base64 blob of text/plain: read decodes it.
    expect(results.blob!.text).toContain("Resource 2: This is a base64 blob created at");
    expect(results.image!.text).toBe("mcp://edge/pic://pixel.png: PNG image, 1×1, 70 B");
    const image = wireResults(2).find((b) => b.tool_use_id === "image");
    expect(image.content.find((b: any) => b.type === "image").source).toMatchObject({ type: "base64", media_type: "image/png" });
    expect(results.binary!.text).toBe("mcp://edge/bin://data is binary (application/octet-stream, ELF executable or library, 8 B); its bytes are not shown.");
    expect(results.long!.text).toContain("[Showing lines 1-2000 of 2500. Use offset=2001 to read more.]");
    expect(results.tail!.text).toBe("2499\tline 2499\n2500\tline 2500");
    expect(results.server!.isError).toBe(true);
    expect(results.server!.text).toBe('No MCP server is named "nosuch"; the configured ones are "everything", "edge".');
    expect(results.missing!.isError).toBe(true);
    expect(results.missing!.text).toContain('Could not read demo://resource/nope from the MCP server "everything":');
    expect(results.missing!.text).toContain("The mcp_resources tool lists the resources it has.");
    expect(results.bare!.isError).toBe(true);
    expect(results.bare!.text).toContain("mcp://everything is not an MCP resource path: write mcp://<server>/<resource uri>");

    // The next run starts from the cached lists: its first request offers the listing already, and it works.
    standin.setScript([{ toolCalls: [{ id: "again", name: "mcp_resources", arguments: { server: "edge" } }] }, { text: "done" }]);
    const cached = await run(home, repo);
    expect(cached.code).toBe(0);
    const first = modelRequests(standin)[0]!.body.tools.find((t: any) => t.name === "mcp_resources");
    expect(first.description).toContain("Lists the resources of MCP servers (everything, edge)");
    expect(first.input_schema.properties).toEqual({ server: { type: "string", description: "only this MCP server" } });
    const [again] = toolResultsOf("anthropic-messages", modelRequests(standin)[1]!.body);
    expect(again!.text).toBe("mcp://edge/pic://pixel.png — pic://pixel.png (image/png)\nmcp://edge/bin://data — bin://data (application/octet-stream)\nmcp://edge/text://long — text://long (text/plain)");
  });

  test("without MCP servers an mcp:// path is an error saying none is configured, not a missing file", async () => {
    const { home, repo } = workspace();
    standin.setScript([{ toolCalls: [read("r", "mcp://everything/demo://x")] }, { text: "ok" }]);
    const result = await run(home, repo);
    expect(result.code).toBe(0);
    const [only] = toolResultsOf("anthropic-messages", modelRequests(standin)[1]!.body);
    expect(only!.isError).toBe(true);
    expect(only!.text).toBe("mcp:// paths read resources of MCP servers, and no MCP server is configured in this session (omp mcp add configures one).");
  });
});
