import { describeError } from "../errors/omp-error.ts";
import { describeBinary, detectImage, IMAGE_MIME, imageSize, looksBinary } from "../tools/file-kind.ts";
import { errorResult } from "../tools/format.ts";
import { formatBytes } from "../format-bytes.ts";
import type { ReadRange } from "../tools/internal-urls.ts";
import { READ_MAX_IMAGE_BYTES, readTextOf } from "../tools/read.ts";
import type { ToolContext, ToolResult } from "../tools/types.ts";
import type { McpConnection } from "./connection.ts";
import type { ReadDetails } from "../tools/read-details.ts";

const EXAMPLE = "mcp://<server>/<resource uri>, e.g. mcp://docs/file:///guide.md";

/** `mcp://<server>/<resource uri>` split; the uri is everything after the server's name and its slash. */
export function parseMcpUrl(url: string): { server: string; uri: string } | undefined {
  const match = /^mcp:\/\/([^/]+)\/(.+)$/is.exec(url);
  return match ? { server: match[1]!, uri: match[2]! } : undefined;
}

export interface ResourceServers {
  /** Every configured server by name, whatever its state. */
  connections: ReadonlyMap<string, McpConnection>;
}

/**
 * `read mcp://<server>/<uri>`: the resource's text paged like a file's, an image as an image, other
 * binary content described. Each failure says what to do instead.
 */
export async function readMcpResource(servers: ResourceServers, url: string, range: ReadRange, context: ToolContext): Promise<ToolResult<ReadDetails>> {
  const parsed = parseMcpUrl(url);
  if (!parsed) return errorResult(`${url} is not an MCP resource path: write ${EXAMPLE}. The mcp_resources tool lists each server's resources as such paths.`);
  const names = [...servers.connections.keys()];
  const connection = servers.connections.get(parsed.server);
  if (!connection) return errorResult(`No MCP server is named "${parsed.server}"; the configured ones are ${names.map((n) => `"${n}"`).join(", ") || "none"}.`);
  if (connection.status === "failed") return errorResult(`The MCP server "${parsed.server}" is not running: ${connection.error}.`);
  if (connection.status === "ready" && !connection.hasResources) return errorResult(`The MCP server "${parsed.server}" has no resources.`);
  let contents: Record<string, unknown>[];
  try {
    const result = await connection.request((client) => client.readResource({ uri: parsed.uri }, { signal: context.signal }), context.signal);
    contents = result.contents as Record<string, unknown>[];
  } catch (error) {
    return errorResult(`Could not read ${parsed.uri} from the MCP server "${parsed.server}": ${describeError(error)}. The mcp_resources tool lists the resources it has.`);
  }
  if (contents.length === 0) return errorResult(`The MCP server "${parsed.server}" returned nothing for ${parsed.uri}.`);
  if (contents.length === 1) return oneContent(url, contents[0]!, range);
  // Several parts (a folder-like resource): each text under its uri, then the rest described.
  const text = contents.map((item) => `--- ${String(item.uri ?? parsed.uri)}\n${typeof item.text === "string" ? item.text : blobSummary(item)}`).join("\n");
  return readTextOf(url, text, range);
}

function oneContent(url: string, item: Record<string, unknown>, range: ReadRange): ToolResult<ReadDetails> {
  if (typeof item.text === "string") return readTextOf(url, item.text, range);
  const bytes = Buffer.from(String(item.blob ?? ""), "base64");
  const mimeType = typeof item.mimeType === "string" ? item.mimeType : undefined;
  const image = detectImage(bytes);
  if (image) {
    const dims = imageSize(bytes, image);
    const description = `${image.toUpperCase()} image, ${dims ? `${dims.width}×${dims.height}, ` : ""}${formatBytes(bytes.length)}`;
    if (bytes.length > READ_MAX_IMAGE_BYTES) return errorResult(`${url}: ${description}, too large to attach (limit ${formatBytes(READ_MAX_IMAGE_BYTES)}).`);
    return {
      content: [
        { type: "text", text: `${url}: ${description}` },
        { type: "image", data: bytes.toString("base64"), mimeType: IMAGE_MIME[image] },
      ],
      details: { kind: "image", path: url, format: image, bytes: bytes.length, ...dims },
    };
  }
  // A blob that is text after all (servers send text/plain as base64 too).
  if (!looksBinary(bytes.subarray(0, 8192))) return readTextOf(url, bytes.toString("utf8"), range);
  return { content: [{ type: "text", text: `${url} is binary (${blobSummary(item)}); its bytes are not shown.` }], details: { kind: "binary", path: url, mimeType, bytes: bytes.length } };
}

function blobSummary(item: Record<string, unknown>): string {
  const bytes = Buffer.from(String(item.blob ?? ""), "base64");
  return `${typeof item.mimeType === "string" ? `${item.mimeType}, ` : ""}${describeBinary(bytes.subarray(0, 8192))}, ${formatBytes(bytes.length)}`;
}
