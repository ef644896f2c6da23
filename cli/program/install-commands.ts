import type { Command } from "commander";
import type { UpdateFlags } from "../commands/update.ts";
import type { CompletionsFlags } from "../commands/completions.ts";
import type { SetupFlags } from "../commands/setup.ts";
import type { Run } from "../options/options.ts";

/** `omp doctor`: this installation's health (doctor.ts). */
export function describeDoctor(program: Command, run: Run): void {
  program
    .command("doctor")
    .description("check this installation: version, platform, native addon, cache, SQLite")
    .option("--json", "print the report as JSON")
    .option("--repair", "verify every cached native addon by sha256 and re-extract damaged ones before loading")
    .action(run(async (options: { json?: boolean; repair?: boolean }) => (await import("../commands/doctor.ts")).runDoctor(options)));
}

/** `omp update`: the verified, atomic self-update (update.ts). */
export function describeUpdate(program: Command, run: Run): void {
  program
    .command("update")
    .description("update this omp to the latest release of its channel, verified and atomically")
    .option("--check", "only check: exit 0 when up to date, 10 when an update is available")
    .option("--version <version>", "install this version (a downgrade needs --force)")
    .option("--channel <channel>", "stable or canary; remembered in the config")
    .option("--from <file|url>", "install from an offline bundle, a release archive or a binary (with SHA256SUMS and .sig beside it)")
    .option("--force", "reinstall the same version, or allow a downgrade")
    .addHelpText(
      "after",
      "\nExit status: 0 done or up to date, 1 failed (nothing changed), 2 bad usage, 3 installed by a package manager\n" +
        "(use its command), 10 update available (--check).\nOMP_UPDATE_URL sets the release server (a mirror); HTTPS_PROXY, HTTP_PROXY and NO_PROXY apply.",
    )
    .action(run(async (options: UpdateFlags) => (await import("../commands/update.ts")).runUpdateCommand(options)));
}

/** `omp completions`: shell completion scripts generated from this program (completions.ts). */
export function describeCompletions(program: Command, run: Run): void {
  program
    .command("completions")
    .description("print the completion script for bash, zsh or fish (commands, flags, models, sessions, setting keys)")
    .argument("[shell]", "bash, zsh or fish")
    .option("--list <kind>", "print the words offered for models, sessions or settings (the scripts call this)")
    .addHelpText(
      "after",
      "\nInstall: bash: omp completions bash > ~/.local/share/bash-completion/completions/omp\n" +
        "         zsh:  omp completions zsh > \"${fpath[1]}/_omp\"\n" +
        "         fish: omp completions fish > ~/.config/fish/completions/omp.fish",
    )
    .action(run(async (shell: string | undefined, options: CompletionsFlags) => (await import("../commands/completions.ts")).runCompletions(shell, options)));
}

/** `omp setup [feature]`: the optional programs omp's features use (setup.ts). */
export function describeSetup(program: Command, run: Run): void {
  program
    .command("setup")
    .description("check or install what optional features need: language servers, a Python kernel, a browser")
    .argument("[feature]", "typescript, pyright, clangd, python or browser; none: check them all")
    .option("--check", "only check; exit 1 when something is missing")
    .option("--dry-run", "print the install commands, run nothing")
    .option("-y, --yes", "run the install commands without asking")
    .option("--json", "print JSON")
    .addHelpText(
      "after",
      "\nInstalls go through the machine's package manager (apt-get on Debian and Ubuntu, brew on macOS, npm for\n" +
        "the Node.js language servers), after showing the commands and asking. On an air-gapped server, run\n" +
        "`omp setup <feature> --dry-run` to see the packages, and install them from your local mirror.",
    )
    .action(run(async (feature: string | undefined, options: SetupFlags) => (await import("../commands/setup.ts")).runSetup(feature, options)));
}
