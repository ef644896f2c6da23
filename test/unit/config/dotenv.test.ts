import { describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { dotenvFiles, loadDotenv, parseDotenv } from "../../../core/config/dotenv.ts";
import { clearSkippedForTrust, skippedForTrust } from "../../../core/trust/folder-trust.ts";
import { scratchDir } from "./scratch.ts";

describe("parseDotenv", () => {
  test("plain, exported, quoted and commented assignments", () => {
    const vars = parseDotenv(
      [
        "# a comment",
        "",
        "PLAIN=value",
        "export EXPORTED=yes",
        "  SPACED = padded value  ",
        "INLINE=abc # trailing comment",
        "HASH=a#b",
        "EMPTY=",
        "ONLY_COMMENT= # nothing",
        "SINGLE='literal $HOME \\n # kept'",
        'DOUBLE="line1\\nline2\\t\\"q\\" \\\\ \\x"',
        'AFTER="quoted" # comment after quotes',
        "URL=http://host:8080/path?a=b",
      ].join("\n"),
    );
    expect(Object.fromEntries(vars)).toEqual({
      PLAIN: "value",
      EXPORTED: "yes",
      SPACED: "padded value",
      INLINE: "abc",
      HASH: "a#b",
      EMPTY: "",
      ONLY_COMMENT: "",
      SINGLE: "literal $HOME \\n # kept",
      DOUBLE: 'line1\nline2\t"q" \\ \\x',
      AFTER: "quoted",
      URL: "http://host:8080/path?a=b",
    });
  });

  test("quoted values may span lines; CRLF files work", () => {
    const vars = parseDotenv('PEM="-----BEGIN KEY-----\r\nabc\r\n-----END KEY-----"\r\nNEXT=1\r\n');
    expect(vars.get("PEM")).toBe("-----BEGIN KEY-----\nabc\n-----END KEY-----");
    expect(vars.get("NEXT")).toBe("1");
  });

  test("bad keys, lines without =, NUL values and unclosed quotes", () => {
    const vars = parseDotenv('1BAD=x\nBAD-KEY=y\njust text\nNUL=a\0b\nOPEN="never closed\nOK=1\nOK=2\n');
    expect(Object.fromEntries(vars)).toEqual({ OPEN: '"never closed', OK: "2" });
  });
});

describe("loadDotenv", () => {
  function setup() {
    const home = scratchDir("omp-dotenv-");
    const cwd = join(home, "project");
    const agent = join(home, "agent-dir");
    mkdirSync(cwd);
    mkdirSync(agent);
    mkdirSync(join(home, ".omp"));
    writeFileSync(join(cwd, ".env"), "A=project\nSHELL_SET=project\n");
    writeFileSync(join(agent, ".env"), "A=agent\nB=agent\n");
    writeFileSync(join(home, ".omp", ".env"), "B=omp\nC=omp\n");
    writeFileSync(join(home, ".env"), "C=home\nD=home\n");
    return { home, cwd, agent };
  }

  test("existing variables win; then cwd, agent dir, ~/.omp and ~ in that order", () => {
    const { home, cwd, agent } = setup();
    const env: NodeJS.ProcessEnv = { OMP_AGENT_DIR: agent, SHELL_SET: "shell" };
    const applied = loadDotenv({ cwd, home, env });
    expect(env).toEqual({ OMP_AGENT_DIR: agent, SHELL_SET: "shell", A: "project", B: "agent", C: "omp", D: "home" });
    expect(applied.get("A")).toBe(join(cwd, ".env"));
    expect(applied.get("D")).toBe(join(home, ".env"));
    expect(applied.has("SHELL_SET")).toBe(false);
  });

  test("untrusted, the project .env sets only harmless variables; the user's own files still fill the rest", () => {
    const { home, cwd, agent } = setup();
    writeFileSync(join(cwd, ".env"), "A=project\nBASH_ENV=/tmp/evil\nGIT_CONFIG_COUNT=1\nANTHROPIC_BASE_URL=http://127.0.0.1:9\nD=project\n");
    writeFileSync(join(home, ".env"), "ANTHROPIC_BASE_URL=https://proxy.mine\n");
    clearSkippedForTrust();
    const env: NodeJS.ProcessEnv = { OMP_AGENT_DIR: agent };
    loadDotenv({ cwd, home, env, trusted: false });
    expect(env).toEqual({ OMP_AGENT_DIR: agent, A: "project", B: "agent", C: "omp", D: "project", ANTHROPIC_BASE_URL: "https://proxy.mine" });
    expect(skippedForTrust()).toEqual([".env: BASH_ENV, GIT_CONFIG_COUNT, ANTHROPIC_BASE_URL"]);
    clearSkippedForTrust();
    const trustedEnv: NodeJS.ProcessEnv = { OMP_AGENT_DIR: agent };
    loadDotenv({ cwd, home, env: trustedEnv, trusted: true });
    expect(trustedEnv.BASH_ENV).toBe("/tmp/evil");
    expect(trustedEnv.ANTHROPIC_BASE_URL).toBe("http://127.0.0.1:9");
    expect(skippedForTrust()).toEqual([]);
  });

  test("a variable set to the empty string is still set", () => {
    const { home, cwd, agent } = setup();
    const env: NodeJS.ProcessEnv = { OMP_AGENT_DIR: agent, A: "" };
    loadDotenv({ cwd, home, env });
    expect(env.A).toBe("");
  });

  test("the same file is read once when cwd is home", () => {
    const home = scratchDir("omp-dotenv-");
    expect(dotenvFiles({ cwd: home, home, env: { OMP_AGENT_DIR: join(home, "a") } })).toEqual([
      join(home, ".env"),
      join(home, "a", ".env"),
      join(home, ".omp", ".env"),
    ]);
  });
});
