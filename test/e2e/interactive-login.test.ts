// /login and /logout in the interactive mode (tmux), against the stand-in authorization server.
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { startOAuthStandin } from "../support/oauth-standin.ts";
import { readySessions } from "../support/tty-session.ts";

setDefaultTimeout(60_000);
const ready = readySessions();
const oauth = await startOAuthStandin();
afterAll(() => oauth.close());

const logins = (home: string) => {
  const db = new Database(join(home, ".omp", "agent", "agent.db"), { readonly: true });
  const rows = db.query<{ provider: string; disabled_cause: string | null }, []>("SELECT provider, disabled_cause FROM auth_credentials WHERE credential_type = 'oauth'").all();
  db.close();
  return rows;
};

describe("/login and /logout", () => {
  test("/login github-copilot shows the device code, stores the login; /logout erases it", async () => {
    const s = await ready({ env: oauth.env() });
    s.tty.type("/login github-copilot");
    s.tty.press("Enter");
    await s.tty.waitFor("WDJB-MJHT");
    await s.tty.waitFor("Logged in to GitHub Copilot.");
    expect(logins(s.home)).toEqual([{ provider: "github-copilot", disabled_cause: null }]);
    s.tty.type("/logout github-copilot");
    s.tty.press("Enter");
    await s.tty.waitFor("Logged out of github-copilot (1 account).");
    expect(logins(s.home)).toEqual([{ provider: "github-copilot", disabled_cause: "logged out by user" }]);
  });
});
