import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { UpdateChannel } from "../core/config/settings-schema.ts";
import { ChannelPointer, channelPointerPath } from "../core/update/release-manifest.ts";
import { compareVersions } from "../core/update/semver.ts";

/**
 * Moves the channel pointers under `outRoot` to a new release. A pointer never moves backwards (a
 * fix to an older line must not pull users back), and a stable release also advances canary when
 * canary is behind it, since canary users want the newest of both.
 */
export function advanceChannels(outRoot: string, version: string, channel: UpdateChannel, date: string): string[] {
  const channels: UpdateChannel[] = channel === "stable" ? ["stable", "canary"] : ["canary"];
  const notes: string[] = [];
  for (const name of channels) {
    const path = join(outRoot, channelPointerPath(name));
    const current = existsSync(path) ? ChannelPointer.parse(JSON.parse(readFileSync(path, "utf8"))).version : null;
    if (current !== null && compareVersions(current, version) > 0) {
      notes.push(`${name} stays at ${current}, which is newer than ${version}`);
      continue;
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${JSON.stringify(ChannelPointer.parse({ channel: name, version, date }), null, 2)}\n`);
    notes.push(`${name} → ${version}`);
  }
  return notes;
}
