import { join, resolve } from "node:path";
import { agentEnvPath, configRoot, homeDir } from "../paths.ts";
import { readConfigText } from "./config-file.ts";
import { folderTrust, noteSkippedForTrust } from "../trust/folder-trust.ts";
import { unsafeForUntrustedProject } from "./untrusted-env.ts";

const KEY = /^[A-Za-z_][A-Za-z0-9_]*$/;
const ESCAPES: Record<string, string> = { n: "\n", r: "\r", t: "\t", "\\": "\\", '"': '"' };

/**
 * The variables a `.env` file defines. Deliberately small: `KEY=value` lines, an optional `export `
 * prefix, `#` comments (whole lines, or after whitespace in an unquoted value), single quotes taken
 * literally, double quotes with \n \r \t \\ \" escapes; both quotes may span lines (PEM blocks).
 * Lines that are not assignments or whose key is not a shell identifier are skipped; a value with
 * a NUL byte is dropped since no environment can hold it. A later line wins over an earlier one.
 */
export function parseDotenv(text: string): Map<string, string> {
  const source = text.replace(/\r\n?/g, "\n");
  const vars = new Map<string, string>();
  let pos = 0;
  const lineEnd = (from: number) => {
    const end = source.indexOf("\n", from);
    return end === -1 ? source.length : end;
  };

  while (pos < source.length) {
    const end = lineEnd(pos);
    const line = source.slice(pos, end);
    const eq = line.indexOf("=");
    const trimmed = line.trimStart();
    if (trimmed === "" || trimmed.startsWith("#") || eq === -1) {
      pos = end + 1;
      continue;
    }
    const key = line.slice(0, eq).trim().replace(/^export\s+/, "");
    let valueStart = pos + eq + 1;
    while (source[valueStart] === " " || source[valueStart] === "\t") valueStart++;

    let value: string;
    const quote = source[valueStart];
    const close = quote === '"' || quote === "'" ? findClosingQuote(source, valueStart + 1, quote) : -1;
    if (close !== -1) {
      const body = source.slice(valueStart + 1, close);
      value = quote === '"' ? body.replace(/\\(.)/g, (escape, char: string) => ESCAPES[char] ?? escape) : body;
      pos = lineEnd(close) + 1;
    } else {
      // Unquoted, or a quote never closed: the rest of the line, without a trailing comment.
      value = source
        .slice(valueStart, end)
        .replace(/(^|\s+)#.*$/, "")
        .trim();
      pos = end + 1;
    }
    if (KEY.test(key) && !value.includes("\0")) vars.set(key, value);
  }
  return vars;
}

function findClosingQuote(source: string, from: number, quote: string): number {
  for (let i = from; i < source.length; i++) {
    if (source[i] === "\\" && quote === '"') i++;
    else if (source[i] === quote) return i;
  }
  return -1;
}

export interface DotenvOptions {
  cwd?: string;
  home?: string;
  /** The environment to fill; also where `OMP_AGENT_DIR` is read. */
  env?: NodeJS.ProcessEnv;
  /** Whether the project's `.env` may set anything; default: the folder's stored trust. */
  trusted?: boolean;
}

/** The `.env` files omp reads, highest precedence first: project, agent dir, `~/.omp`, home. */
export function dotenvFiles(options: DotenvOptions = {}): string[] {
  const home = options.home ?? homeDir();
  const files = [
    join(resolve(options.cwd ?? process.cwd()), ".env"),
    agentEnvPath(options.env),
    join(configRoot(home), ".env"),
    join(home, ".env"),
  ];
  return [...new Set(files)];
}

/**
 * Fills `env` (default `process.env`) from the `.env` files. A variable already in the environment
 * is never replaced, and among the files the first to define a variable wins, so a shell export
 * beats a project `.env`, which beats `~/.env`. In an untrusted folder the project `.env` sets no
 * variable that changes how tools, git or requests behave (core/config/untrusted-env.ts). Returns
 * the file each variable came from.
 */
export function loadDotenv(options: DotenvOptions = {}): Map<string, string> {
  const env = options.env ?? process.env;
  const applied = new Map<string, string>();
  const [project, ...others] = dotenvFiles({ ...options, env });
  const projectVars = parseFile(project!);
  if (projectVars.size > 0 && !(options.trusted ?? folderTrust(options.cwd ?? process.cwd(), { env }).trusted)) {
    const unsafe = [...projectVars.keys()].filter((key) => env[key] === undefined && unsafeForUntrustedProject(key));
    for (const key of unsafe) projectVars.delete(key);
    if (unsafe.length > 0) noteSkippedForTrust(`.env: ${unsafe.join(", ")}`);
  }
  for (const [file, vars] of [[project!, projectVars], ...others.map((file) => [file, parseFile(file)] as const)] as const) {
    for (const [key, value] of vars) {
      if (env[key] !== undefined) continue;
      env[key] = value;
      applied.set(key, file);
    }
  }
  return applied;
}

function parseFile(file: string): Map<string, string> {
  const text = readConfigText(file);
  return text === undefined ? new Map() : parseDotenv(text);
}
