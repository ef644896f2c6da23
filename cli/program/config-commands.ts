import type { Command } from "commander";
import type { ConfigFlags } from "../commands/config.ts";
import type { TrustFlags } from "../commands/trust.ts";
import type { Run } from "../options/options.ts";
import { collect } from "../options/option-values.ts";

/** `omp config …`: settings (config.ts). */
export function describeConfig(program: Command, run: Run): void {
  const config = program.command("config").description("show and change settings (~/.omp/agent/config.yml)");
  const PROFILE = ["--profile <name>", "the profile (~/.omp/agent/profiles/<name>.yml) over the global config; default OMP_PROFILE"] as const;
  config
    .command("list")
    .description("every setting with its effective value and where it comes from")
    .option(...PROFILE)
    .option("--json", "print JSON")
    .action(run(async (options: ConfigFlags) => (await import("../commands/config.ts")).runConfigList(options)));
  config
    .command("get")
    .description("print the effective value of a setting (exit 1 when unset)")
    .argument("<key>", "dotted key such as compaction.enabled")
    .option(...PROFILE)
    .option("--show-origin", "print where the value comes from after it (default, global, profile, project, ...)")
    .option("--json", "print JSON")
    .action(run(async (key: string, options: ConfigFlags) => (await import("../commands/config.ts")).runConfigGet(key, options)));
  config
    .command("set")
    .description("write a setting to the global config.yml (or a profile's, or the project's)")
    .argument("<key>", "dotted key such as compaction.enabled")
    .argument("<value...>", "the value; lists as JSON or comma-separated")
    .option("--profile <name>", "write the profile's file instead (created if missing)")
    .option("--project", "write the project's .omp/config.yml instead (not for sandbox.* and auth.*)")
    .option("--json", "print JSON")
    .action(run(async (key: string, value: string[], options: ConfigFlags) => (await import("../commands/config.ts")).runConfigSet(key, value, options)));
  config
    .command("unset")
    .description("remove a setting from config.yml, so its default applies again")
    .argument("<key>", "dotted key, e.g. retry.maxRetries, or a whole group")
    .option("--profile <name>", "remove it from the profile's file instead")
    .option("--project", "remove it from the project's .omp/config.yml instead")
    .option("--json", "machine-readable output")
    .action(run(async (key: string, options: ConfigFlags) => (await import("../commands/config.ts")).runConfigUnset(key, options)));
  config
    .command("path")
    .description("print where omp keeps its files")
    .option("--json", "print JSON")
    .action(run(async (options: { json?: boolean }) => (await import("../commands/config.ts")).runConfigPath(options)));
}

/** `omp extensions`: the skills and commands loaded here (extensions.ts). */
export function describeExtensions(program: Command, run: Run): void {
  program
    .command("extensions")
    .description("list the skills and slash commands omp loads here, with their files and why any were skipped")
    .option("--json", "print JSON")
    .action(run(async (options: { json?: boolean }) => (await import("../commands/extensions.ts")).runExtensions(options)));
}

/** `omp models`: what the providers serve (models.ts). */
export function describeModels(program: Command, run: Run): void {
  program
    .command("models")
    .description("what each provider with a key serves now, against omp's catalog (new and retired models)")
    .option("--refresh", "ask the providers again instead of using the lists cached today")
    .option("--json", "machine-readable output")
    .action(run(async (options: { refresh?: boolean; json?: boolean }) => (await import("../commands/models.ts")).runModels(options)));
}

/** `omp trust`: folder trust (trust.ts). */
export function describeTrust(program: Command, run: Run): void {
  program
    .command("trust")
    .description("trust a project folder: its .env, config and models files may then run commands and redirect requests")
    .argument("[dir]", "the folder (default: the current one); everything under it is covered")
    .option("--list", "list the folders decided on")
    .option("--revoke", "forget the decision for the folder")
    .option("--deny", "remember the folder as untrusted (the interactive mode stops asking)")
    .option("--json", "with --list: print JSON")
    .action(run(async (dir: string | undefined, options: TrustFlags) => (await import("../commands/trust.ts")).runTrust(dir, options)));
}

/** `omp ttsr`: the time-traveling stream rules (ttsr.ts): list them, test them against a sample. */
export function describeTtsr(program: Command, run: Run): void {
  const ttsr = program.command("ttsr").description("stream rules (TTSR): list the rules a session here watches, test them on a sample");
  ttsr
    .command("list")
    .description("every rule file found here: stream rules with their condition and scope, the others, and the skipped ones with why")
    .option("--json", "machine-readable output")
    .action(run(async (options: { json?: boolean }) => (await import("../commands/ttsr.ts")).runTtsrList(options)));
  ttsr
    .command("test")
    .description("which rules fire on a sample (words, a file, or - for stdin); exit 0 when one fires, 1 when none")
    .argument("[sample...]", "the text; a single existing file is tested as an edit of it")
    .option("--rule <file>", "test this rule file instead of the rules found here; repeatable", collect)
    .option("--source <source>", "text, thinking or tool: the stream the sample is from")
    .option("--tool <name>", "the tool whose arguments the sample is (implies --source tool)")
    .option("--path <path>", "the file the tool call is about (for scope and globs)")
    .option("--file <path>", "read the sample from this file, - for stdin")
    .option("--verbose", "say why each other rule did not fire")
    .option("--json", "machine-readable output")
    .action(run(async (sample: string[], options: import("../commands/ttsr.ts").TtsrTestFlags) => (await import("../commands/ttsr.ts")).runTtsrTest(sample, options)));
  ttsr
    .command("scan")
    .description("files whose content a rule would fire on as an edit of them (ignore files honoured); exit 0 when one does, 1 when none")
    .argument("[paths...]", "files or folders (default: the current folder)")
    .option("--rule <file>", "scan for this rule file instead of the rules found here; repeatable", collect)
    .option("--json", "machine-readable output")
    .action(run(async (paths: string[], options: { rule?: string[]; json?: boolean }) => (await import("../commands/ttsr.ts")).runTtsrScan(paths, options)));
}
