// Issue 29, /settings: every setting with its value, source and description, filtered by typing and
// changed in place; the change is written as `omp config set` writes it (omp config get shows it),
// settings read at use time apply in the running session at once, a bad value is shown inline,
// and tools.approval.<tool>: ask brings up the approval prompt even in yolo mode.
import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runOmp, tempDir } from "../support/omp.ts";
import { READY, readySessions } from "../support/tty-session.ts";

setDefaultTimeout(90_000);

const ready = readySessions();

describe("/settings", () => {
  test("lists, filters and changes settings in place; omp config get sees them; read.defaultLimit applies at once", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `row ${i + 1}`).join("\n") + "\n";
    const s = await ready({
      files: { "big.txt": lines },
      rows: 40,
      cols: 140,
      script: [{ toolCalls: [{ id: "r1", name: "read", arguments: { path: "big.txt" } }] }, { text: "Read it." }],
    });
    const { tty } = s;
    const get = async (key: string) => (await runOmp(["config", "get", key, "--show-origin"], { home: s.home, cwd: s.cwd })).stdout.trim();

    tty.type("/settings");
    tty.press("Enter");
    await tty.waitFor("writes global ~/.omp/agent/config.yml");
    // Every setting, with its value and where it comes from.
    await tty.waitFor(/thinking\s+medium\s+default/);

    // An enum: filter to it, pick the next value.
    tty.type("thinking");
    await tty.waitFor("Reasoning effort for models that support it.");
    await tty.waitFor(/allowed: .*medium.*high/);
    tty.press("Enter");
    await tty.waitFor("(unset)");
    tty.press("Down");
    tty.press("Enter");
    await tty.waitFor(/thinking = high in ~\/\.omp\/agent\/config\.yml\. Restart omp/);
    expect(await get("thinking")).toBe("high\tglobal (~/.omp/agent/config.yml)");
    await tty.waitFor(/thinking\s+high\s+global/);

    // A number: a bad value is refused inline and nothing is written; a good one applies now.
    for (let i = 0; i < "thinking".length; i++) tty.press("BSpace");
    tty.type("read.default");
    await tty.waitFor(/read\.defaultLimit\s+2000\s+default/);
    await tty.waitFor("allowed: whole number 1 to 100000");
    tty.press("Enter");
    await tty.waitFor("enter write · esc cancel");
    tty.press("C-u");
    tty.type("0");
    tty.press("Enter");
    await tty.waitFor("read.defaultLimit: got 0, expected a number ≥ 1");
    expect(readFileSync(join(s.home, ".omp", "agent", "config.yml"), "utf8")).not.toContain("defaultLimit");
    tty.press("C-u");
    tty.type("4");
    tty.press("Enter");
    await tty.waitFor("read.defaultLimit = 4 in ~/.omp/agent/config.yml. Takes effect now.");
    expect(await get("read.defaultLimit")).toBe("4\tglobal (~/.omp/agent/config.yml)");

    // A boolean toggles with Enter.
    for (let i = 0; i < "read.default".length; i++) tty.press("BSpace");
    tty.type("bashInterceptor");
    await tty.waitFor(/bashInterceptor\.enabled\s+false\s+default/);
    tty.press("Enter");
    await tty.waitFor(/bashInterceptor\.enabled\s+true\s+global/);
    expect(await get("bashInterceptor.enabled")).toBe("true\tglobal (~/.omp/agent/config.yml)");

    // Settings only the user decides are refused for the project's file.
    for (let i = 0; i < "bashInterceptor".length; i++) tty.press("BSpace");
    tty.type("sandbox.mode");
    await tty.waitFor("user files only");
    tty.press("Tab");
    await tty.waitFor("writes project");
    tty.press("Enter");
    tty.press("Enter");
    await tty.waitFor("sandbox.mode is the user's alone");
    expect(existsSync(join(s.cwd, ".omp", "config.yml"))).toBe(false);

    tty.press("Escape");
    await tty.waitFor(READY);
    // The session reads the new limit at once: the model's read gets 4 lines.
    tty.type("read big.txt");
    tty.press("Enter");
    await tty.waitFor("Read it.");
    const toolResult = JSON.stringify(s.standin.requests.filter((r) => r.method === "POST").at(-1)!.body);
    expect(toolResult).toContain("row 4");
    expect(toolResult).not.toContain("row 5");
  });

  test("a secret setting is shown masked, edited from empty and echoed masked; omp config get prints it when asked by name", async () => {
    const home = tempDir("omp-tty-home-");
    const OLD = "relay-SECRET-old-token-0123456789";
    const NEW = "relay-SECRET-new-token-9876543210";
    mkdirSync(join(home, ".omp", "agent"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "config.yml"), `collab:\n  relayToken: ${OLD}\n`);
    const s = await ready({ home, rows: 40, cols: 140 });
    const { tty } = s;
    tty.type("/settings");
    tty.press("Enter");
    await tty.waitFor("writes global ~/.omp/agent/config.yml");
    tty.type("relayToken");
    await tty.waitFor(/collab\.relayToken\s+…6789\s+global/);
    // Typing part of the secret finds nothing by its value.
    tty.type(" SECRET-old");
    await tty.waitFor((screen) => !screen.includes("collab.relayToken"));
    for (let i = 0; i < " SECRET-old".length; i++) tty.press("BSpace");
    await tty.waitFor(/collab\.relayToken\s+…6789/);
    tty.press("Enter");
    await tty.waitFor("enter write · esc cancel");
    tty.type(NEW);
    tty.press("Enter");
    await tty.waitFor("collab.relayToken = …3210 in ~/.omp/agent/config.yml");
    expect(tty.history()).not.toContain("SECRET-old");
    expect(readFileSync(join(home, ".omp", "agent", "config.yml"), "utf8")).toContain(NEW);
    const get = await runOmp(["config", "get", "collab.relayToken"], { home, cwd: s.cwd });
    expect(get.stdout.trim()).toBe(NEW);
    const list = await runOmp(["config", "list"], { home, cwd: s.cwd });
    expect(list.stdout).toContain("collab.relayToken");
    expect(list.stdout).not.toContain("SECRET");
  });

  test("tools.approval.bash: ask set in /settings asks before the next bash call, in yolo mode", async () => {
    const s = await ready({
      rows: 40,
      cols: 140,
      script: [{ toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo asked > asked.txt" } }] }, { text: "Done." }],
    });
    const { tty } = s;
    tty.type("/settings");
    tty.press("Enter");
    await tty.waitFor("writes global");
    tty.type("approval.bash");
    await tty.waitFor(/tools\.approval\.bash\s+\(unset\)\s+default/);
    tty.press("Enter");
    await tty.waitFor("(unset)");
    // allow, ask, deny, prompt, (unset)
    tty.press("Down");
    tty.press("Enter");
    await tty.waitFor("tools.approval.bash = ask in ~/.omp/agent/config.yml. Takes effect now.");
    tty.press("Escape");
    await tty.waitFor(READY);
    tty.type("make the file");
    tty.press("Enter");
    await tty.waitFor("tools.approval.bash is ask");
    expect(existsSync(join(s.cwd, "asked.txt"))).toBe(false);
    tty.press("y");
    await tty.waitFor("Done.");
    expect(existsSync(join(s.cwd, "asked.txt"))).toBe(true);
  });

  test("theme and approvalMode changed in /settings apply at once: new colours, and the next bash call asks", async () => {
    const s = await ready({
      rows: 40,
      cols: 140,
      script: [{ toolCalls: [{ id: "b1", name: "bash", arguments: { command: "echo asked > asked.txt" } }] }, { text: "Done." }],
    });
    const { tty } = s;
    const colours = (screen: string) => [...new Set(screen.match(/\x1b\[[0-9;]*m/g) ?? [])].sort().join(" ");
    const before = colours(tty.styledScreen());
    /** Filters to `key` (an enum at its default `from`), moves through its values and picks `to`. */
    const choose = async (key: string, from: string, moves: string[], to: string) => {
      tty.type(key);
      await tty.waitFor(new RegExp(`${key}\\s+${from}\\s+default`));
      tty.press("Enter");
      await tty.waitFor("(unset)");
      tty.press(...moves, "Enter");
      await tty.waitFor(`${key} = ${to} in ~/.omp/agent/config.yml. Takes effect now.`);
      for (let i = 0; i < key.length; i++) tty.press("BSpace");
    };
    tty.type("/settings");
    tty.press("Enter");
    await tty.waitFor("writes global");
    // auto, dark, light, (unset): from auto, two down; always-ask, write, yolo, (unset): from yolo, two up.
    await choose("theme", "auto", ["Down", "Down"], "light");
    await choose("approvalMode", "yolo", ["Up", "Up"], "always-ask");
    tty.press("Escape");
    await tty.waitFor(READY);
    expect(colours(tty.styledScreen())).not.toBe(before);
    tty.type("make the file");
    tty.press("Enter");
    await tty.waitFor("echo asked > asked.txt");
    await tty.waitFor(/Yes|Allow/);
    expect(existsSync(join(s.cwd, "asked.txt"))).toBe(false);
    tty.press("y");
    await tty.waitFor("Done.");
    expect(existsSync(join(s.cwd, "asked.txt"))).toBe(true);
  });

  test("under --profile, values show the profile as their source and Tab writes the profile's file", async () => {
    const home = tempDir("omp-tty-home-");
    mkdirSync(join(home, ".omp", "agent", "profiles"), { recursive: true });
    writeFileSync(join(home, ".omp", "agent", "profiles", "work.yml"), "thinking: high\n");
    const s = await ready({ home, rows: 40, cols: 140, args: ["--profile", "work"] });
    const { tty } = s;
    tty.type("/settings");
    tty.press("Enter");
    await tty.waitFor("writes global");
    tty.type("thinking");
    await tty.waitFor(/thinking\s+high\s+profile/);
    tty.press("Tab");
    await tty.waitFor("writes profile ~/.omp/agent/profiles/work.yml");
    tty.press("Enter");
    await tty.waitFor("(unset)");
    tty.press("Up");
    tty.press("Enter");
    await tty.waitFor(/thinking = medium in ~\/\.omp\/agent\/profiles\/work\.yml/);
    expect(readFileSync(join(home, ".omp", "agent", "profiles", "work.yml"), "utf8")).toBe("thinking: medium\n");
    expect(existsSync(join(home, ".omp", "agent", "config.yml"))).toBe(false);
  });
});
