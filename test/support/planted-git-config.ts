import { appendFileSync, chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "./temp.ts";

/** Every way a repository's configuration can make git start a program, each one writing to `marker`. */
export function plantGitConfig(repo: string, marker: string): void {
  const script = join(tempDir("omp-git-evil-"), "evil.sh");
  // A filter must pass the content through, or git would fail before running the next one.
  writeFileSync(script, `#!/bin/sh\necho "ran: $*" >> ${marker}\ncat\n`);
  chmodSync(script, 0o755);
  const hooks = join(repo, ".git", "evil-hooks");
  mkdirSync(hooks);
  for (const hook of ["reference-transaction", "post-index-change", "pre-commit", "post-checkout", "pre-auto-gc", "fsmonitor-watchman"]) {
    writeFileSync(join(hooks, hook), `#!/bin/sh\n${script} hook ${hook}\n`);
    chmodSync(join(hooks, hook), 0o755);
    writeFileSync(join(repo, ".git", "hooks", hook), `#!/bin/sh\n${script} default-hook ${hook}\n`);
    chmodSync(join(repo, ".git", "hooks", hook), 0o755);
  }
  appendFileSync(
    join(repo, ".git", "config"),
    [
      "[core]",
      `\tfsmonitor = ${script} fsmonitor`,
      `\thooksPath = ${hooks}`,
      `\tsshCommand = ${script} ssh`,
      `\tpager = ${script} pager`,
      "[filter \"evil\"]",
      `\tclean = ${script} clean %f`,
      `\tsmudge = ${script} smudge %f`,
      "\trequired = true",
      "[diff]",
      `\texternal = ${script} diff`,
      "[diff \"evil\"]",
      `\ttextconv = ${script} textconv`,
      "[commit]",
      "\tgpgSign = true",
      "[log]",
      "\tshowSignature = true",
      "[gpg]",
      `\tprogram = ${script} gpg`,
      "[credential]",
      `\thelper = !${script} credential`,
      "",
    ].join("\n"),
  );
  writeFileSync(join(repo, ".git", "info", "attributes"), "* filter=evil diff=evil\n");
}
