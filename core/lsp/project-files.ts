import { existsSync, statSync } from "node:fs";
import { join } from "node:path";

/** The names a language-server config file goes by, in the original omp's order. */
const LSP_FILE_NAMES = ["lsp.json", ".lsp.json", "lsp.yaml", ".lsp.yaml", "lsp.yml", ".lsp.yml"];

/** The language-server config files of one folder, in that order. */
export function lspFilesIn(dir: string): string[] {
  return LSP_FILE_NAMES.map((name) => join(dir, name)).filter((file) => existsSync(file) && statSync(file).isFile());
}

/** A project's own language-server files: in its `.omp`, `.claude`, `.codex`, `.gemini` and its root. */
export function projectLspFiles(cwd: string): string[] {
  return [".omp", ".claude", ".codex", ".gemini"].flatMap((dir) => lspFilesIn(join(cwd, dir))).concat(lspFilesIn(cwd));
}
