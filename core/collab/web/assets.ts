// Imported with { type: "macro" } by web-guest.ts: the web guest is bundled for the browser when omp
// is built, so the binary carries the finished page and nothing is compiled at run time.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export interface WebGuestAssets {
  html: string;
  css: string;
  js: string;
}

export function webGuestAssets(): WebGuestAssets {
  // The bundler's CLI in a child: a macro calling Bun.build would wait on the bundler running it.
  const bundled = Bun.spawnSync([process.execPath, "build", join(import.meta.dir, "guest.ts"), "--target=browser", "--format=esm", "--minify"], { stdout: "pipe", stderr: "pipe" });
  if (bundled.exitCode !== 0) throw new Error(`the web guest did not bundle:\n${bundled.stderr.toString()}`);
  return {
    html: readFileSync(join(import.meta.dir, "guest.html"), "utf8"),
    css: readFileSync(join(import.meta.dir, "guest.css"), "utf8"),
    js: bundled.stdout.toString(),
  };
}
