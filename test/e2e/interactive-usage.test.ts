// Issue 29 in the interactive mode (tmux): a Claude Pro/Max login at 85 % of its 5-hour limit shows
// a warning in the status line (from the usage endpoint's stand-in); /usage lists the account's
// limits; Ctrl+P cycles through the --models list only.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { startOAuthStandin } from "../support/oauth-standin.ts";
import { loginViaBrowser } from "../support/oauth-login.ts";
import { tempDir } from "../support/omp.ts";
import { startStandin } from "../support/standin/index.ts";
import { readySessions } from "../support/tty-session.ts";

setDefaultTimeout(90_000);
const ready = readySessions();
const oauth = await startOAuthStandin();
afterAll(() => oauth.close());

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();
/** The status line: the row above the editor's top border. */
const statusRow = (screen: string) => screen.split("\n").find((row) => row.includes("ctx ")) ?? "";

describe("usage and model cycling in the interactive mode", () => {
  test("the 5-hour limit at 85 % warns in the status line; /usage lists the limits; Ctrl+P goes through --models only", async () => {
    const home = tempDir("omp-tty-home-");
    expect((await loginViaBrowser(oauth, home, "anthropic")).code).toBe(0);
    oauth.usage.anthropic = { five_hour: { utilization: 85.0, resets_at: inHours(3.5) }, seven_day: { utilization: 30.0, resets_at: inHours(100) }, seven_day_opus: null };
    const before = oauth.usageRequests.length;
    const s = await ready({
      home,
      cols: 160,
      // The login, not a key from the environment: only a subscription has limits to ask about.
      env: { ...oauth.env(), ANTHROPIC_API_KEY: undefined },
      args: ["--models", "anthropic/claude-sonnet-4-5,anthropic/claude-opus-4-5"],
    });
    const { tty } = s;
    const warned = await tty.waitFor((screen) => statusRow(screen).includes("5-hour limit 85%"));
    expect(statusRow(warned)).toMatch(/5-hour limit 85% · resets in 3h (29|30)m/);
    expect(oauth.usageRequests.slice(before).some((request) => request.path === "/api/oauth/usage")).toBe(true);
    // In the warning colour, not the muted one of the parts beside it.
    const styled = tty.styledScreen().split("\n").find((row) => row.includes("5-hour limit 85%")) ?? "";
    const colourOf = (text: string) => new RegExp(`(\x1b\\[[0-9;]*m)${text}`).exec(styled)?.[1];
    expect(colourOf("5-hour limit 85%")).toBeDefined();
    expect(colourOf("5-hour limit 85%")).not.toBe(colourOf("ctx "));

    tty.type("/usage");
    tty.press("Enter");
    await tty.waitFor("Subscriptions");
    const listed = await tty.waitFor(/weekly limit\s+30%/);
    expect(listed).toMatch(/5-hour limit\s+85%\s+resets in 3h (29|30)m .* warning/);
    expect(listed).toContain("anthropic  user@example.com");

    expect(statusRow(tty.screen())).toContain("claude-sonnet-4-5");
    tty.press("C-p");
    await tty.waitFor("Model: anthropic/claude-opus-4-5");
    await tty.waitFor((screen) => statusRow(screen).includes("claude-opus-4-5"));
    tty.press("C-p");
    await tty.waitFor("Model: anthropic/claude-sonnet-4-5");
    await tty.waitFor((screen) => statusRow(screen).includes("claude-sonnet-4-5"));
    tty.press("C-p");
    await tty.waitFor("Model: anthropic/claude-opus-4-5");
  });

  test("Codex's rate-limit headers on an answer update the warning at once: 97 % of the 5-hour window, in the error colour", async () => {
    const home = tempDir("omp-tty-home-");
    expect((await loginViaBrowser(oauth, home, "openai-codex")).code).toBe(0);
    const codex = await startStandin({
      script: [
        {
          text: "codex answer",
          headers: { "x-codex-primary-used-percent": "97", "x-codex-primary-window-minutes": "300", "x-codex-primary-reset-after-seconds": "5400", "x-codex-secondary-used-percent": "20", "x-codex-secondary-window-minutes": "10080" },
        },
      ],
    });
    try {
      const before = oauth.usageRequests.length;
      const s = await ready({
        home,
        cols: 160,
        env: { ...oauth.env(), OPENAI_CODEX_BASE_URL: `${codex.url}/backend-api/codex`, ANTHROPIC_API_KEY: undefined },
        args: ["--model", "openai-codex/gpt-5.1-codex"],
      });
      const { tty } = s;
      // The usage endpoint's answer (4 % used) gives no warning.
      const deadline = Date.now() + 10_000;
      while (!oauth.usageRequests.slice(before).some((request) => request.path === "/backend-api/wham/usage") && Date.now() < deadline) await Bun.sleep(25);
      await Bun.sleep(200);
      expect(statusRow(tty.screen())).not.toContain("limit");
      tty.type("hello");
      tty.press("Enter");
      await tty.waitFor("codex answer");
      const warned = await tty.waitFor((screen) => statusRow(screen).includes("5-hour limit 97%"));
      expect(statusRow(warned)).toMatch(/5-hour limit 97% · resets in 1h (29|30)m/);
      const styled = tty.styledScreen().split("\n").find((row) => row.includes("5-hour limit 97%")) ?? "";
      const colourOf = (text: string) => new RegExp(`(\x1b\\[[0-9;]*m)${text}`).exec(styled)?.[1];
      expect(colourOf("5-hour limit 97%")).toBeDefined();
      expect(colourOf("5-hour limit 97%")).not.toBe(colourOf("ctx "));
    } finally {
      await codex.close();
    }
  });
});
