// A real language server as a loaded machine makes it: after its answer to initialize, everything
// it sends (diagnostics pushed or pulled, other answers) reaches omp `delayMs` late, in order.
// Usage: bun slow-diagnostics.ts <delayMs> <command> [args…]
const [delayText, command, ...args] = process.argv.slice(2);
const delayMs = Number(delayText);
const child = Bun.spawn([command!, ...args], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });

void (async () => {
  for await (const chunk of Bun.stdin.stream()) {
    child.stdin.write(chunk);
    child.stdin.flush();
  }
  child.stdin.end();
})();

const write = (frame: Uint8Array) => {
  process.stdout.write(frame);
};

let buffer = Buffer.alloc(0);
let initialized = false;
for await (const chunk of child.stdout) {
  buffer = Buffer.concat([buffer, Buffer.from(chunk)]);
  for (;;) {
    const headerEnd = buffer.indexOf("\r\n\r\n");
    if (headerEnd === -1) break;
    const length = Number(/Content-Length: (\d+)/i.exec(buffer.subarray(0, headerEnd).toString())?.[1]);
    if (buffer.length < headerEnd + 4 + length) break;
    const frame = buffer.subarray(0, headerEnd + 4 + length);
    buffer = buffer.subarray(headerEnd + 4 + length);
    if (initialized) setTimeout(() => write(frame), delayMs);
    else write(frame);
    initialized = true;
  }
}
process.exit(await child.exited);
export {};
