// What `omp -p hi` needs of Bun and nothing of omp, compiled with omp's flags (bench/rss-floor.ts):
// one streamed request to a loopback server, a child process, a JSON body and a line on stdout,
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
  const child = Bun.spawn(["git", "--version"], { stdout: "pipe", stderr: "pipe" });
  await new Response(child.stdout).text();
  await child.exited;
}
if (parts.has("json")) JSON.parse(JSON.stringify(Array.from({ length: 2000 }, (_, i) => ({ role: "user", content: `message ${i}` }))));
if (parts.has("stdout")) process.stdout.write("hi\n");
const status = await Bun.file("/proc/self/status").text();
process.stdout.write(`VmHWM ${/VmHWM:\s+(\d+)/.exec(status)![1]}\n`);
export {};
