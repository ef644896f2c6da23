import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** A deterministic pseudo-source tree: `dirs` × `filesPerDir` files of code-like lines. */
export function makeTree(root: string, dirs = 400, filesPerDir = 50): string {
  const marker = join(root, `.complete-${dirs}x${filesPerDir}`);
  if (existsSync(marker)) return root;
  let seed = 42;
  const random = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
  const words = ["alpha", "beta", "gamma", "delta", "request", "response", "handler", "config", "token", "buffer", "stream", "cache", "index", "parse", "render", "update", "query", "client", "server", "value"];
  const pick = () => words[Math.floor(random() * words.length)]!;
  for (let d = 0; d < dirs; d++) {
    const dir = join(root, `pkg${d % 20}`, `mod${d}`);
    mkdirSync(dir, { recursive: true });
    for (let f = 0; f < filesPerDir; f++) {
      const lines: string[] = [];
      const count = 40 + Math.floor(random() * 80);
      for (let l = 0; l < count; l++) {
        lines.push(`    let ${pick()}_${pick()} = ${pick()}(${pick()}, ${Math.floor(random() * 1000)}); // ${pick()} ${pick()}`);
      }
      writeFileSync(join(dir, `file${f}.rs`), `fn ${pick()}_${pick()}() {\n${lines.join("\n")}\n}\n`);
    }
  }
  writeFileSync(join(root, ".gitignore"), "");
  writeFileSync(marker, "");
  return root;
}
