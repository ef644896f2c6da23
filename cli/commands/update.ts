import { realpathSync } from "node:fs";
import { loadSettings } from "../../core/config/settings.ts";
import { UpdateChannel } from "../../core/config/settings-schema.ts";
import { setGlobalSetting } from "../../core/config/settings-write.ts";
import { OmpError, describeError } from "../../core/errors/omp-error.ts";
import { trustedReleaseKey } from "../../core/update/release-key.ts";
import { releaseBaseUrl } from "../../core/update/remote-release.ts";
import { currentTarget } from "../../core/update/target.ts";
import { type UpdateContext, checkForUpdate, runUpdate } from "../../core/update/update.ts";
import { VERSION } from "../../core/version.ts";
import { getEmbeddedNatives } from "../../core/natives/payload.ts";
import { writeStdout } from "../shared/write.ts";
import { EXIT_UPDATE_AVAILABLE, EXIT_USAGE } from "../../core/errors/exit-codes.ts";

// Nothing here may load the native addon: an update has to work when the natives cache is broken.

export interface UpdateFlags {
  check?: boolean;
  version?: string;
  channel?: string;
  from?: string;
  force?: boolean;
}

const log = (line: string) => process.stderr.write(`omp update: ${line}\n`);

function chooseChannel(flag: string | undefined): UpdateChannel {
  if (flag !== undefined) {
    const parsed = UpdateChannel.safeParse(flag);
    if (!parsed.success) throw new OmpError(`--channel must be stable or canary, not ${JSON.stringify(flag)}`, { exitCode: EXIT_USAGE });
    try {
      setGlobalSetting("update.channel", parsed.data);
    } catch (error) {
      log(`could not remember the channel in the config: ${describeError(error)}`);
    }
    return parsed.data;
  }
  try {
    return loadSettings().settings.update.channel;
  } catch (error) {
    log(`reading update.channel failed, using stable: ${describeError(error)}`);
    return "stable";
  }
}

function context(): UpdateContext {
  if (!getEmbeddedNatives()) {
    throw new OmpError("omp update replaces a compiled omp binary, and this omp runs from source: update the checkout instead (git pull)");
  }
  const releaseTarget = currentTarget();
  if (!releaseTarget) throw new OmpError(`omp has no release builds for ${process.platform}-${process.arch}`);
  return { executable: process.execPath, currentVersion: VERSION, releaseTarget, baseUrl: releaseBaseUrl(), key: trustedReleaseKey(), log };
}

/** When the omp a shell would run is not the one just updated, the user must hear it. */
function pathNote(target: string): string {
  const onPath = Bun.which("omp");
  if (!onPath) return `note: omp is not on your PATH; add ${target.replace(/\/[^/]+$/, "")} to it\n`;
  let resolved = onPath;
  try {
    resolved = realpathSync(onPath);
  } catch {}
  return resolved === target ? "" : `note: the omp first on your PATH is ${onPath}, not the updated ${target}\n`;
}

export async function runUpdateCommand(flags: UpdateFlags): Promise<number> {
  const ctx = context();
  const channel = chooseChannel(flags.channel);
  if (flags.check) {
    if (flags.from) throw new OmpError("--check and --from do not go together", { exitCode: EXIT_USAGE });
    const result = await checkForUpdate(ctx, channel, flags.version);
    if (!result.newer) {
      await writeStdout(`omp ${result.current} is up to date (${flags.version ? `asked for ${result.latest}` : `${channel}: ${result.latest}`})\n`);
      return 0;
    }
    await writeStdout(`omp ${result.latest} is available (${channel}); this is omp ${result.current}. Run: omp update${flags.version ? ` --version ${result.latest}` : ""}\n`);
    return EXIT_UPDATE_AVAILABLE;
  }
  if (flags.from && flags.version) throw new OmpError("--from installs the version in the file; leave out --version", { exitCode: EXIT_USAGE });
  const outcome = await runUpdate(ctx, { channel, version: flags.version, from: flags.from, force: flags.force ?? false });
  if (outcome.kind === "up-to-date") {
    await writeStdout(`omp ${outcome.version} is already installed${outcome.note ? ` (${outcome.note})` : ""}\n`);
    return 0;
  }
  const from = outcome.from ? `${outcome.from} → ` : "";
  await writeStdout(`updated omp ${from}${outcome.to} at ${outcome.target}\n${pathNote(outcome.target)}`);
  return 0;
}
