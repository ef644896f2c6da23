// The OAuth token store of a remote MCP server when two omp processes share agent.db and the
// server rotates refresh tokens.
import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import type { RemoteServerEntry, ResolvedServer } from "../../../core/mcp/config-schema.ts";
import { McpOAuthProvider } from "../../../core/mcp/oauth.ts";
import { tempDir } from "../../support/temp.ts";

const server = { name: "secure", type: "http", url: "http://127.0.0.1:9/mcp", headers: {}, scope: "user", source: "test", key: "k" } as unknown as ResolvedServer & RemoteServerEntry;
const tokens = (n: number) => ({ access_token: `a${n}`, token_type: "bearer", refresh_token: `r${n}` });

describe("MCP OAuth tokens in agent.db", () => {
  test("a refused refresh drops the tokens it used, not newer ones another omp saved meanwhile", () => {
    const dir = tempDir("omp-mcp-oauth-");
    const env = { OMP_AGENT_DIR: dir };
    const here = new McpOAuthProvider(server, env);
    const other = new McpOAuthProvider(server, env);
    try {
      here.saveTokens(tokens(1));
      expect(statSync(join(dir, "agent.db")).mode & 0o777).toBe(0o600);
      expect(here.tokens()).toEqual(tokens(1));
      // The other process refreshes first: r1 is spent, r2 is the live one.
      expect(other.tokens()).toEqual(tokens(1));
      other.saveTokens(tokens(2));
      // Here, r1 is refused (invalid_grant): the SDK invalidates, then reads the tokens again.
      here.invalidateCredentials("tokens");
      expect(here.tokens()).toEqual(tokens(2));
      // r2 refused as well: nothing newer, so the tokens go and a login is due.
      here.invalidateCredentials("tokens");
      expect(here.tokens()).toBeUndefined();
      expect(other.tokens()).toBeUndefined();
    } finally {
      here.close();
      other.close();
    }
  });
});
