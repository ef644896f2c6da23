import { displayName, relayToken } from "../../../core/collab/identity.ts";
import { type CollabLink, joinLink, newRoom, normalizeRelay, parseLink, viewOnly, webLink } from "../../../core/collab/link.ts";
import type { CollabSharer } from "../../../core/collab/sharer.ts";
import type { SessionHost } from "../../../core/session-host/host.ts";
import { plural } from "../../../core/plural.ts";
import { textBlock } from "../render/blocks.ts";
import type { Span } from "../render/text.ts";
import type { CommandHost, SlashCommand } from "./commands.ts";

/** The room each interactive session shares, if any. */
const sharing = new WeakMap<SessionHost, CollabSharer>();

function printLinks(command: CommandHost, title: string, link: CollabLink): void {
  command.add(
    textBlock(command.view, (theme) => {
      const line = (label: string, value: string): Span[] => [
        { text: ` • ${label}`, style: theme.fg("muted") },
        { text: value, style: theme.fg("accent") },
      ];
      return [[{ text: title, style: theme.fg("success", "bold") }], line("Join from another terminal: ", `omp join "${joinLink(link)}"`), line("or any web browser: ", webLink(link))];
    }),
  );
}

async function startSharing(command: CommandHost, relay: string): Promise<CollabSharer> {
  const { settings, env } = command.runtime.options;
  // Loaded when a session is first shared: most sessions never are.
  const { CollabSharer } = await import("../../../core/collab/sharer.ts");
  const sharer = new CollabSharer({
    host: command.sessionHost,
    link: newRoom(relay),
    name: await displayName(settings),
    relayToken: relayToken(settings, env),
    notify: ({ kind, text }) => command.notice(kind, text),
    changed: () => command.requestRender(),
  });
  sharing.set(command.sessionHost, sharer);
  await sharer.start();
  return sharer;
}

async function stopSharing(command: CommandHost, reason: "stopped" | "revoked"): Promise<CollabSharer | undefined> {
  const sharer = sharing.get(command.sessionHost);
  if (!sharer) return undefined;
  sharing.delete(command.sessionHost);
  await sharer.stop(reason);
  return sharer;
}

function status(command: CommandHost, sharer: CollabSharer): void {
  printLinks(command, `Sharing through ${new URL(sharer.link.relay).host}${sharer.connected ? "" : " (relay unreachable; retrying)"}`, sharer.link);
  const guests = sharer.participants;
  command.add(
    textBlock(command.view, (theme) => [
      [{ text: `${plural(guests.length, "guest")}${guests.length ? ":" : ""}`, style: theme.fg("muted") }],
      ...guests.map((guest): Span[] => [{ text: `   ${guest.name} (${guest.client}${guest.canWrite ? "" : ", view-only"})`, style: theme.fg("muted") }]),
    ]),
  );
}

/**
 * `/collab`: share this session live through a relay (the original omp's collab.md). Guests in
 * another omp (`omp join`, `/join`) or a browser see it as it happens; a full link may prompt and
 * interrupt, a view-only link only watches.
 */
export const COLLAB_COMMAND: SlashCommand = {
  name: "collab",
  description: "share this session live: links for omp join and the browser (view, status, stop, revoke, or a relay)",
  args: "[view|status|stop|revoke|<relay>]",
  async run(command, args) {
    const current = sharing.get(command.sessionHost);
    const word = args.trim();
    switch (word) {
      case "status":
        if (!current) return command.notice("info", "Not sharing. /collab starts.");
        return status(command, current);
      case "stop":
        if (!(await stopSharing(command, "stopped"))) return command.notice("info", "Not sharing.");
        return command.notice("success", "Stopped sharing: guests were told, and the links no longer work.");
      case "revoke": {
        const old = await stopSharing(command, "revoked");
        if (!old) return command.notice("info", "Not sharing: nothing to revoke.");
        const fresh = await startSharing(command, old.link.relay);
        return printLinks(command, "Revoked the old links (their guests were told). New links:", fresh.link);
      }
      case "view": {
        const sharer = current ?? (await startSharing(command, command.runtime.options.settings.collab.relayUrl));
        return printLinks(command, "View-only link (watch, no prompting):", viewOnly(sharer.link));
      }
      case "":
        if (current) return printLinks(command, "Already sharing:", current.link);
        return printLinks(command, "Collab session started!", (await startSharing(command, command.runtime.options.settings.collab.relayUrl)).link);
      default: {
        const relay = normalizeRelay(word);
        if (current && current.link.relay !== relay) return command.notice("warning", `Already sharing through ${new URL(current.link.relay).host}: /collab stop first.`);
        if (current) return printLinks(command, "Already sharing:", current.link);
        return printLinks(command, "Collab session started!", (await startSharing(command, relay)).link);
      }
    }
  },
};

/** `/join <link>`: this terminal becomes a guest of a shared session until /leave; the own session is back after. */
export const JOIN_COMMAND: SlashCommand = {
  name: "join",
  description: "join a session shared with /collab, as a guest (/leave comes back here)",
  args: "<link>",
  idleOnly: true,
  async run(command, args) {
    if (!args.trim()) return command.notice("warning", "Usage: /join <link>, the link /collab printed on the host.");
    if (sharing.has(command.sessionHost)) return command.notice("warning", "This session is shared: /collab stop before joining another.");
    const { settings } = command.runtime.options;
    const link = parseLink(args, settings.collab.relayUrl);
    await command.joinAsGuest(link, await displayName(settings));
    command.notice("info", "Left the shared session; back in your own.");
  },
};

/** `/leave` on the host: stop sharing (a guest's /leave is the guest view's). */
export const LEAVE_COMMAND: SlashCommand = {
  name: "leave",
  description: "stop sharing this session (a guest: leave the shared session)",
  async run(command) {
    if (!(await stopSharing(command, "stopped"))) return command.notice("info", "Not in a shared session.");
    command.notice("success", "Stopped sharing: guests were told, and the links no longer work.");
  },
};

/** For the status line while the session is shared: always in view, with how many watch. */
export function sharingStatus(host: SessionHost): { text: string; warning: boolean } | undefined {
  const sharer = sharing.get(host);
  if (!sharer) return undefined;
  if (!sharer.connected) return { text: "⇄ shared · relay unreachable", warning: true };
  return { text: `⇄ shared · ${plural(sharer.participants.length, "guest")}`, warning: false };
}

/** The session ends: its guests are told rather than left waiting. */
export async function endSharing(host: SessionHost): Promise<void> {
  const sharer = sharing.get(host);
  sharing.delete(host);
  await sharer?.stop("stopped");
}
