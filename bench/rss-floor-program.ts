// What `omp -p hi` needs of Bun and nothing of omp, compiled with omp's flags (bench/rss-floor.ts):
// one streamed request to a loopback server, two child processes read through pipes (as git is),
// node:fs and node:path reading and probing files, a request-sized JSON body and a line on stdout,
// each part switched on by an argument, then the process's own peak RSS on stdout.
const parts = new Set(process.argv.slice(2));
if (parts.has("fetch")) {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("data: {}\n\n".repeat(50), { headers: { "content-type": "text/event-stream" } }) });
  const response = await fetch(`http://127.0.0.1:${server.port}/v1/messages`, { method: "POST", body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }), headers: { "content-type": "application/json" } });
  const decoder = new TextDecoder();
  for await (const chunk of response.body!) decoder.decode(chunk, { stream: true });
  server.stop(true);
}
if (parts.has("spawn")) {
  await Promise.all(
    [["--version"], ["--exec-path"]].map(async (args) => {
      const child = Bun.spawn(["git", ...args], { stdout: "pipe", stderr: "pipe" });
      await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    }),
  );
}
if (parts.has("fs")) {
  // Named so that the bundler cannot see them: a program that names node:fs anywhere, even in a
  // chunk it never loads, peaks ~1.7 MiB higher, and the rows before this one would carry it.
  const builtin = (name: string) => `node:${name}`;
  const { existsSync, readFileSync, statSync } = (await import(builtin("fs"))) as typeof import("node:fs");
  const { join } = (await import(builtin("path"))) as typeof import("node:path");
  // As omp's start-up does: reads the few files that exist, probes many that do not.
  for (const name of [".env", ".omp/config.yml", ".claude/settings.json", "package.json"]) {
    if (existsSync(join(process.cwd(), name))) readFileSync(join(process.cwd(), name), "utf8");
    try {
      statSync(join("/nonexistent", name));
    } catch {
      // A missing file is what most probes find.
    }
  }
}
// omp's first request in print mode is about 16 KB (bench/results/request-size.md).
if (parts.has("json")) JSON.parse(JSON.stringify({ model: "m", system: "s".repeat(8000), tools: Array.from({ length: 20 }, (_, i) => ({ name: `tool${i}`, description: "d".repeat(300) })), messages: [{ role: "user", content: "hi" }] }));
// As omp's print mode writes (cli/modes/output.ts): a FileSink on fd 1.
if (parts.has("stdout")) {
  const sink = Bun.stdout.writer();
  sink.write("hi\n");
  await sink.flush();
}
// Node's stream over fd 1, which omp does not create: for comparison.
if (parts.has("node-stdout")) process.stdout.write("hi\n");
const status = await Bun.file("/proc/self/status").text();
await Bun.write(Bun.stdout, `VmHWM ${/VmHWM:\s+(\d+)/.exec(status)![1]}\n`);
export {};
