import type { OptionSpec } from "./option-parser.ts";
import { nonNegativeInt, sortOrder } from "./option-values.ts";

/**
 * The options of `omp grep` and `omp find`: program.ts registers them on commander for help,
 * completions and anything unusual, and search-argv.ts parses the common invocations without it.
 */
export const GREP_OPTIONS: readonly OptionSpec[] = [
  { flags: "-i, --ignore-case", description: "match case-insensitively" },
  { flags: "-S, --smart-case", description: "ignore case unless the pattern has an uppercase letter" },
  { flags: "-F, --fixed-strings", description: "treat the pattern as a literal string" },
  { flags: "-U, --multiline", description: "let matches span lines" },
  { flags: "-g, --glob <glob>", description: "include (or with ! exclude) paths matching a glob; repeatable", repeatable: true },
  { flags: "-t, --type <type>", description: "only files of this type (rust, ts, py, ...); repeatable", repeatable: true },
  { flags: "--hidden", description: "search hidden files and directories" },
  { flags: "--no-ignore", description: "do not respect .gitignore, .ignore and git excludes" },
  { flags: "-A, --after-context <n>", description: "lines to show after each match", parse: nonNegativeInt },
  { flags: "-B, --before-context <n>", description: "lines to show before each match", parse: nonNegativeInt },
  { flags: "-C, --context <n>", description: "lines to show before and after each match", parse: nonNegativeInt },
  { flags: "-m, --max-count <n>", description: "stop after n matching lines per file", parse: nonNegativeInt },
  { flags: "-l, --files-with-matches", description: "print only the paths of files with a match" },
  { flags: "-c, --count", description: "print the number of matching lines per file" },
  { flags: "-M, --max-columns <n>", description: "omit lines longer than n bytes", parse: nonNegativeInt },
  { flags: "-H, --with-filename", description: "print the path with each line" },
  { flags: "-I, --no-filename", description: "never print the path" },
  { flags: "-j, --threads <n>", description: "search threads (default: one per core)", parse: nonNegativeInt },
  { flags: "--sort <order>", description: "path (default: as rg --sort path) or none (as found, fastest)", parse: sortOrder },
  { flags: "--json", description: "one JSON object per line" },
];

export const FIND_OPTIONS: readonly OptionSpec[] = [
  { flags: "-t, --type <kind>", description: "only f(ile), d(ir) or l(ink); repeatable", repeatable: true },
  { flags: "--hidden", description: "include hidden files and directories" },
  { flags: "--no-ignore", description: "do not respect .gitignore, .ignore and git excludes" },
  { flags: "-m, --max-results <n>", description: "stop after n results", parse: nonNegativeInt },
  { flags: "--newest", description: "newest first (by modification time)" },
  { flags: "--sort <order>", description: "path (default) or none (as found, fastest)", parse: sortOrder },
  { flags: "-L, --long", description: "show size and modification time" },
  { flags: "--json", description: "one JSON object per line" },
];
