import { displayName } from "../../core/collab/identity.ts";
import { CollabLinkError, parseLink } from "../../core/collab/link.ts";
import { loadSettings } from "../../core/config/settings.ts";
import { EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { OmpError } from "../../core/errors/omp-error.ts";
import { runGuest } from "../interactive/guest/run-guest.ts";

/** `omp join <link>`: a guest of a shared session (/collab on the host), in this terminal. */
export async function runJoin(link: string): Promise<number> {
  const env = process.env;
  const { settings } = loadSettings({ cwd: process.cwd(), env });
  let parsed;
  try {
    parsed = parseLink(link, settings.collab.relayUrl);
  } catch (error) {
    if (error instanceof CollabLinkError) throw new OmpError(`omp join: ${error.message}`, { exitCode: EXIT_USAGE, cause: error });
    throw error;
  }
  if (!process.stdin.isTTY || !process.stdout.isTTY) throw new OmpError("omp join draws the shared session in a terminal: run it in one (stdin and stdout a TTY)", { exitCode: EXIT_USAGE });
  return runGuest(parsed, await displayName(settings), settings.theme, env);
}
