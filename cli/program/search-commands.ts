import type { Command } from "commander";
import type { FindFlags } from "../commands/find.ts";
import type { GrepFlags } from "../commands/grep.ts";
import { addOptions, type Run } from "../options/options.ts";
import { FIND_OPTIONS, GREP_OPTIONS } from "../options/search-options.ts";

// `omp grep` and `omp find` are also parsed without commander (search-argv.ts), from the same option tables.

/** `omp grep`: ripgrep's search (grep.ts runs it). */
export function describeGrep(program: Command, run: Run): void {
  const grep = program
    .command("grep")
    .description("search file contents with ripgrep's engine (output as `rg -n`)")
    .argument("<pattern>", "regular expression (or a literal with -F)")
    .argument("[paths...]", "files or directories to search (default: the current directory)");
  addOptions(grep, GREP_OPTIONS).action(
    run(async (pattern: string, paths: string[], options: GrepFlags) => (await import("../commands/grep.ts")).runGrep(pattern, paths, options)),
  );
}

/** `omp find`: paths by glob (find.ts runs it). */
export function describeFind(program: Command, run: Run): void {
  const find = program
    .command("find")
    .description("list paths matching a glob, respecting .gitignore")
    .argument("<glob>", "glob such as '*.ts' or 'src/**/*.rs'")
    .argument("[path]", "directory to search (default: the current directory)");
  addOptions(find, FIND_OPTIONS).action(
    run(async (glob: string, path: string | undefined, options: FindFlags) => (await import("../commands/find.ts")).runFind(glob, path, options)),
  );
}
