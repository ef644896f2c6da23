import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeFileAtomic } from "../fs/atomic-write.ts";
import { type UpdateChannel, UpdateChannel as ChannelSchema } from "../config/settings-schema.ts";
import { agentDir, ensurePrivateDir } from "../paths.ts";
import { VERSION } from "../version.ts";
import { getEmbeddedNatives } from "../natives/payload.ts";
import { detectInstallOwner } from "./install-owner.ts";
import { fetchChannelVersion, releaseBaseUrl } from "./remote-release.ts";
import { compareVersions } from "./semver.ts";

/**
 * The interactive agent's update notice. At most one network check a day, never awaited by the
 * caller, one attempt with short timeouts, failures silent (recorded, so an offline machine is not
 * asked again until tomorrow); the last answer is kept in <agent dir>/update-check.json, so the
 * notice itself shows at startup from the cache with no network at all.
 */

export const CHECK_INTERVAL_MS = 24 * 60 * 60 * 1000;

const CheckCache = z.object({
  checkedAt: z.number(),
  channel: ChannelSchema,
  latest: z.string().nullable(),
});
type CheckCache = z.infer<typeof CheckCache>;

const cachePath = (env: NodeJS.ProcessEnv) => join(agentDir(env), "update-check.json");

function readCache(env: NodeJS.ProcessEnv): CheckCache | null {
  try {
    return CheckCache.parse(JSON.parse(readFileSync(cachePath(env), "utf8")));
  } catch {
    return null;
  }
}

/** Off with OMP_NO_UPDATE_CHECK=1, with `update.checkForUpdates: false`, and when omp runs from source. */
export function updateCheckEnabled(checkForUpdates: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  const optOut = env.OMP_NO_UPDATE_CHECK;
  return checkForUpdates && !(optOut && optOut !== "0") && getEmbeddedNatives() !== null;
}

function noticeFor(latest: string | null, current: string, executable: string): string | null {
  if (!latest || compareVersions(latest, current) <= 0) return null;
  const owner = detectInstallOwner([executable]);
  return `omp ${latest} is available (this is ${current}): run ${owner ? owner.command : "omp update"}`;
}

export interface UpdateCheckOptions {
  channel: UpdateChannel;
  env?: NodeJS.ProcessEnv;
  now?: number;
  currentVersion?: string;
  /** The installed omp, whose owner decides the command the notice suggests (default: this process's). */
  executable?: string;
  /** Called at most once, with a one-line notice, when a newer version is known. */
  onNotice(text: string): void;
}

/**
 * Shows a cached notice right away and, when the cache is a day old (or for another channel),
 * refreshes it in the background. Returns the background check, which callers need not await.
 */
export function startUpdateCheck(options: UpdateCheckOptions): Promise<void> {
  const env = options.env ?? process.env;
  const now = options.now ?? Date.now();
  const current = options.currentVersion ?? VERSION;
  const cache = readCache(env);
  let told = false;
  const tell = (latest: string | null) => {
    const text = told ? null : noticeFor(latest, current, options.executable ?? process.execPath);
    if (text) {
      told = true;
      options.onNotice(text);
    }
  };
  if (cache && cache.channel === options.channel) tell(cache.latest);
  if (cache && cache.channel === options.channel && now - cache.checkedAt < CHECK_INTERVAL_MS) return Promise.resolve();
  return (async () => {
    // A failed check keeps the last known answer, so an offline day does not hide a pending update.
    let latest = cache && cache.channel === options.channel ? cache.latest : null;
    try {
      latest = await fetchChannelVersion(releaseBaseUrl(env), options.channel, { attempts: 1, headersTimeoutMs: 5000, stallTimeoutMs: 5000, backoffMs: 0 });
    } catch {}
    try {
      ensurePrivateDir(agentDir(env));
      writeFileAtomic(cachePath(env), `${JSON.stringify({ checkedAt: now, channel: options.channel, latest })}\n`);
    } catch {}
    tell(latest);
  })();
}
