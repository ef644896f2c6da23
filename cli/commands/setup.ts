import { EXIT_FAILURE, EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { OmpError } from "../../core/errors/omp-error.ts";
import { FEATURES, type FeatureStatus, detectPlatform, featureById, featureStatus } from "../../core/setup/features.ts";
import { firstLine } from "../shared/stdin-line.ts";
import { writeStdout } from "../shared/write.ts";

export interface SetupFlags {
  check?: boolean;
  json?: boolean;
  yes?: boolean;
  dryRun?: boolean;
}

/**
 * `omp setup [feature]`: without a feature, what each optional feature needs and whether it is
 * there; with one, the commands that install it here, run once the user says yes (`--yes`),
 * only printed with `--dry-run`, only checked with `--check` (exit 1 when missing).
 */
export async function runSetup(id: string | undefined, flags: SetupFlags): Promise<number> {
  const platform = detectPlatform();
  const root = process.getuid?.() === 0;
  if (id === undefined) {
    const statuses = FEATURES.map((feature) => featureStatus(feature, platform, root));
    if (flags.json) await writeStdout(`${JSON.stringify({ platform, features: statuses }, null, 2)}\n`);
    else await writeStdout(overview(statuses));
    return flags.check && statuses.some((status) => !status.installed) ? EXIT_FAILURE : 0;
  }
  const feature = featureById(id);
  if (!feature) throw new OmpError(`unknown feature "${id}"; omp setup knows ${FEATURES.map((f) => f.id).join(", ")}`, { exitCode: EXIT_USAGE });
  const status = featureStatus(feature, platform, root);
  if (flags.json) {
    await writeStdout(`${JSON.stringify({ platform, ...status }, null, 2)}\n`);
    return flags.check && !status.installed ? EXIT_FAILURE : 0;
  }
  if (status.installed) {
    await writeStdout(`${id}: installed (${status.enables})\n`);
    return 0;
  }
  await writeStdout(`${id}: missing ${status.missing.join(", ")} — needed for ${status.enables}\n`);
  if (flags.check) return EXIT_FAILURE;
  if (status.commands.length === 0) {
    await writeStdout(`omp has no install recipe for this machine (${platform}); ${status.manual}\n`);
    return EXIT_FAILURE;
  }
  await writeStdout(`It would run:\n${status.commands.map((line) => `  ${line}`).join("\n")}\n`);
  if (flags.dryRun) return 0;
  if (!flags.yes) {
    const answer = (await firstLine("Run these commands? [y/N] ")).trim().toLowerCase();
    if (answer !== "y" && answer !== "yes") {
      process.stderr.write("omp: nothing was run\n");
      return EXIT_FAILURE;
    }
  }
  for (const line of status.commands) {
    process.stderr.write(`omp: running ${line}\n`);
    const run = Bun.spawnSync(["sh", "-c", line], { stdin: "inherit", stdout: "inherit", stderr: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
    if (run.exitCode !== 0) throw new OmpError(`\`${line}\` failed (exit ${run.exitCode}); nothing after it was run. ${status.manual}`);
  }
  const after = featureStatus(feature, platform, root);
  if (!after.installed) throw new OmpError(`the commands ran, but ${after.missing.join(", ")} is still not found; is its folder on PATH? ${status.manual}`);
  await writeStdout(`${id}: installed\n`);
  return 0;
}

function overview(statuses: FeatureStatus[]): string {
  const lines = statuses.map((s) => `${s.installed ? "✓" : "✗"} ${s.id.padEnd(11)} ${s.installed ? "installed" : `missing ${s.missing.join(", ")}`.padEnd(9)}  ${s.enables}`);
  const missing = statuses.filter((s) => !s.installed).map((s) => s.id);
  if (missing.length > 0) lines.push("", `omp setup <feature> installs one (${missing.join(", ")}); --dry-run prints the commands only.`);
  return `${lines.join("\n")}\n`;
}
