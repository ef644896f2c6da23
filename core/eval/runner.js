// The eval tool's JavaScript runtime: one retained Bun process per session, run inside the command
// sandbox (a Worker in omp's own process could read whatever omp can), speaking the same NDJSON
// frames as the Python runner. Cells run as scripts in this process's global scope, so top-level
// declarations persist; a cell that awaits or returns runs as an async function.
const vm = require("node:vm");
const { inspect } = require("node:util");
const { createRequire } = require("node:module");
const { isAbsolute, resolve } = require("node:path");
const { pathToFileURL } = require("node:url");

let current = null;
const send = (frame) => process.stdout.write(`${JSON.stringify(frame)}\n`);
const text = (values) => values.map((value) => (typeof value === "string" ? value : inspect(value, { depth: 4 }))).join(" ");
const PNG = [0x89, 0x50, 0x4e, 0x47];

function bundle(value) {
  if (value instanceof Uint8Array && PNG.every((byte, i) => value[i] === byte)) return { "image/png": Buffer.from(value).toString("base64"), "text/plain": "<PNG image>" };
  if (value && typeof value === "object" && value.type === "image" && typeof value.data === "string") return { [value.mimeType ?? "image/png"]: value.data, "text/plain": "<image>" };
  if (value !== null && typeof value === "object") {
    try {
      return { "application/json": JSON.parse(JSON.stringify(value)), "text/plain": inspect(value, { depth: 4 }) };
    } catch {}
  }
  return { "text/plain": typeof value === "string" ? value : inspect(value, { depth: 4 }) };
}

const display = (...values) => {
  for (const value of values) send({ type: "display", id: current, bundle: bundle(value) });
};
const stream = (name) => (...values) => {
  const data = `${text(values)}\n`;
  // In pieces: one huge log never makes a frame the host refuses.
  for (let start = 0; start < data.length; start += 1 << 20) send({ type: name, id: current, data: data.slice(start, start + (1 << 20)) });
};
globalThis.display = display;
// The original omp's prelude helpers that touch files and the environment (inside the sandbox like all else).
const fsp = require("node:fs/promises");
const home = (path) => (path.startsWith("~/") ? `${process.env.HOME}${path.slice(1)}` : path);
globalThis.read = async (path, offset, limit) => {
  if (offset && typeof offset === "object") ({ offset, limit } = offset);
  const text = await fsp.readFile(home(path), "utf8");
  if (offset == null && limit == null) return text;
  const lines = text.split(/(?<=\n)/);
  const start = Math.max((offset ?? 1) - 1, 0);
  return lines.slice(start, limit == null ? undefined : start + limit).join("");
};
globalThis.write = async (path, content) => {
  await fsp.mkdir(require("node:path").dirname(resolve(home(path))), { recursive: true });
  await fsp.writeFile(home(path), content);
  return path;
};
globalThis.append = async (path, content) => (await fsp.appendFile(home(path), content), path);
globalThis.env = (key, value) => {
  if (key === undefined) return { ...process.env };
  if (value !== undefined) process.env[key] = String(value);
  return process.env[key];
};
// Modules resolve from the session's directory (its node_modules, its relative paths), not from here.
const cwdRequire = createRequire(resolve(process.cwd(), "cell.js"));
globalThis.require = cwdRequire;
globalThis.__omp_import__ = (specifier) => {
  if (specifier.startsWith(".") || isAbsolute(specifier)) return import(pathToFileURL(resolve(process.cwd(), specifier)).href);
  try {
    return import(cwdRequire.resolve(specifier));
  } catch {
    return import(specifier);
  }
};
globalThis.print = stream("stdout");
for (const name of ["log", "info", "debug"]) console[name] = stream("stdout");
for (const name of ["error", "warn", "trace"]) console[name] = stream("stderr");

/**
 * Scripts cannot import: top-level static imports become assignments of globals (so the names
 * persist like declarations), dynamic ones go through __omp_import__.
 */
function rewriteImports(code) {
  const from = (spec) => `await __omp_import__(${spec})`;
  return code
    .replace(/^import\s+\*\s+as\s+([\w$]+)\s+from\s+(["'][^"']+["']);?/gm, (_, name, spec) => `globalThis.${name} = ${from(spec)};`)
    .replace(/^import\s+([\w$]+)\s+from\s+(["'][^"']+["']);?/gm, (_, name, spec) => `globalThis.${name} = (${from(spec)}).default;`)
    .replace(/^import\s*\{([^}]*)\}\s*from\s+(["'][^"']+["']);?/gm, (_, names, spec) => `({ ${names.replace(/([\w$]+)\s+as\s+([\w$]+)/g, "$1: $2")} } = ${from(spec)});`)
    .replace(/\bimport\s*\(/g, "__omp_import__(");
}

/**
 * A cell that compiles as a script runs as one, its declarations persisting; one that needs top-level
 * await or return runs as an async function, its unindented declarations made globals so they persist too.
 */
function compile(source) {
  const code = rewriteImports(source);
  try {
    return new vm.Script(code, { filename: "cell.js" });
  } catch (error) {
    if (!(error instanceof SyntaxError) || !/\bawait\b|\breturn\b/.test(code)) throw error;
  }
  const hoisted = code
    .replace(/^(?:const|let|var)\s+([\w$]+)\s*=/gm, "globalThis.$1 =")
    .replace(/^((?:async\s+)?function\s*\*?\s*([\w$]+))/gm, "globalThis.$2 = $1")
    .replace(/^class\s+([\w$]+)/gm, "globalThis.$1 = class $1");
  return new vm.Script(`(async () => {\n${hoisted}\n})()`, { filename: "cell.js" });
}

async function execute(request) {
  current = request.id;
  send({ type: "started", id: current });
  let status = "ok";
  try {
    let result = compile(request.code).runInThisContext();
    if (result && typeof result.then === "function") result = await result;
    if (result !== undefined) send({ type: "result", id: current, bundle: bundle(result) });
  } catch (error) {
    status = "error";
    const stack = error instanceof Error ? (error.stack ?? String(error)) : String(error);
    send({ type: "error", id: current, ename: error?.name ?? "Error", evalue: error?.message ?? String(error), traceback: [stack.split("\n").filter((line) => !line.includes("runner.js")).join("\n")] });
  }
  send({ type: "done", id: current, status, cancelled: false });
}

let chain = Promise.resolve();
let buffer = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => {
  buffer += chunk;
  for (let newline = buffer.indexOf("\n"); newline !== -1; newline = buffer.indexOf("\n")) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      continue;
    }
    if (message.type === "exit") chain = chain.then(() => process.exit(0));
    if (typeof message.code === "string") chain = chain.then(() => execute(message));
  }
});
process.stdin.on("end", () => (chain = chain.then(() => process.exit(0))));
process.on("unhandledRejection", (error) => send({ type: "stderr", id: current, data: `Unhandled rejection: ${error?.stack ?? error}\n` }));
send({ type: "ready", pid: process.pid, bun: process.versions.bun });
