import { describe, expect, test } from "bun:test";
import { mkdirSync, readdirSync, realpathSync, renameSync, utimesSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { formatAge, listSessions, mostRecentSession, resolveSession } from "../../../core/session/listing.ts";
import { encodeCwd, legacyEncodeCwd, sessionDirFor } from "../../../core/session/paths.ts";
import { SessionWriter } from "../../../core/session/writer.ts";
import { scratchDir } from "../config/scratch.ts";
import { assistant, user } from "./fixtures.ts";
import { errorOf } from "../../support/omp-error.ts";

function setup() {
  const root = realpathSync(scratchDir("omp-listing-"));
  const agent = join(root, "agent");
  const cwd = join(root, "project");
  mkdirSync(cwd);
  return { root, cwd, env: { OMP_AGENT_DIR: agent } };
}

/** A session whose file was last modified `minutesAgo` minutes ago. */
function session(cwd: string, env: NodeJS.ProcessEnv, minutesAgo: number, firstPrompt?: string, title?: string) {
  const writer = SessionWriter.create({ cwd, env, title });
  if (firstPrompt !== undefined) {
    writer.append({ type: "model_change", model: "anthropic/claude-sonnet-4-5" });
    writer.append({ type: "message", message: user(firstPrompt) });
    writer.append({ type: "message", message: assistant("ok") });
  } else {
    writer.append({ type: "custom", customType: "x", data: null });
  }
  writer.close();
  const time = new Date(Date.now() - minutesAgo * 60_000);
  utimesSync(writer.path, time, time);
  return writer;
}

describe("session dirs", () => {
  test("cwd encoding: below home, below the temp dir, elsewhere", () => {
    const home = "/home/ada";
    const tmp = "/var/tmp-omp";
    expect(encodeCwd("/home/ada", { home, tmp })).toBe("-");
    expect(encodeCwd("/home/ada/src/omp", { home, tmp })).toBe("-src-omp");
    expect(encodeCwd("/var/tmp-omp/x/y", { home, tmp })).toBe("-%tmp-x-y");
    expect(encodeCwd("/srv/data:1/app", { home, tmp })).toBe("--srv-data%3A1-app--");
    expect(encodeCwd("/home/adam/x", { home, tmp })).toBe("--home-adam-x--");
  });

  test("the encoding is injective: folders that used to share a dir get their own", () => {
    const home = "/home/ada";
    const tmp = "/var/tmp-omp";
    const paths = ["/home/ada/x/a-b", "/home/ada/x/a/b", "/home/ada/x-a/b", "/home/ada/tmp/x", "/var/tmp-omp/x", "/home/ada/a%2Db", "/srv/a:b", "/srv/a-b", "/srv/a/b"];
    const names = paths.map((path) => encodeCwd(path, { home, tmp }));
    expect(new Set(names).size).toBe(paths.length);
    expect(legacyEncodeCwd("/home/ada/x/a-b", { home, tmp })).toBe(legacyEncodeCwd("/home/ada/x/a/b", { home, tmp }));
  });

  test("sessions in a dir of the old name move to their own project's dir; another project's stay", () => {
    const { root, env } = setup();
    const dashed = join(root, "x", "a-b");
    const nested = join(root, "x", "a", "b");
    mkdirSync(dashed, { recursive: true });
    mkdirSync(nested, { recursive: true });
    const legacy = join(root, "agent", "sessions", legacyEncodeCwd(dashed, { home: root }));
    mkdirSync(join(legacy, "2026-01-01T00-00-00-000Z_one"), { recursive: true });
    const header = (cwd: string, id: string) => `${JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-01-01T00:00:00.000Z", cwd })}\n`;
    writeFileSync(join(legacy, "2026-01-01T00-00-00-000Z_one.jsonl"), header(dashed, "one"));
    writeFileSync(join(legacy, "2026-01-02T00-00-00-000Z_two.jsonl"), header(nested, "two"));
    const dashedDir = sessionDirFor(dashed, { env, home: root });
    expect(dashedDir).not.toBe(legacy);
    expect(readdirSync(dashedDir).sort()).toEqual(["2026-01-01T00-00-00-000Z_one", "2026-01-01T00-00-00-000Z_one.jsonl"]);
    expect(readdirSync(legacy)).toEqual(["2026-01-02T00-00-00-000Z_two.jsonl"]);
    // x/a/b has no character the old name lost: its dir keeps the name, and its session stays put.
    expect(sessionDirFor(nested, { env, home: root })).toBe(legacy);
    expect(mostRecentSession(nested, { env, home: root })).toBe(join(legacy, "2026-01-02T00-00-00-000Z_two.jsonl"));
  });

  test("the agent dir's sessions/<encoded cwd>, or --session-dir as given", () => {
    const { root, cwd, env } = setup();
    expect(sessionDirFor(cwd, { env, home: root })).toBe(join(root, "agent", "sessions", "-project"));
    expect(sessionDirFor(cwd, { env, sessionDir: "s" })).toBe(join(cwd, "s"));
  });
});

describe("listing", () => {
  test("newest first, with title, message count and age", () => {
    const { cwd, env } = setup();
    const old = session(cwd, env, 300, "first question\nwith detail");
    const titled = session(cwd, env, 5, "ignored", "Named session");
    const recent = session(cwd, env, 1, `  \n\u001b[31m${"long ".repeat(30)}`);
    const empty = session(cwd, env, 60);

    const list = listSessions(dirname(old.path));
    expect(list.map((s) => s.path)).toEqual([recent.path, titled.path, empty.path, old.path]);
    expect(list.map((s) => s.title)).toEqual([`${"long ".repeat(30)}`.slice(0, 79) + "…", "Named session", "(no messages)", "first question"]);
    expect(list.map((s) => s.messageCount)).toEqual([2, 2, 0, 2]);
    expect(list[3]!.id).toBe(old.header.id);
    expect(list[3]!.cwd).toBe(cwd);
    expect(list.map((s) => formatAge(s.modified))).toEqual(["1m ago", "5m ago", "1h ago", "5h ago"]);
    expect(listSessions(dirname(old.path), { limit: 2 }).map((s) => s.path)).toEqual([recent.path, titled.path]);
  });

  test("ages", () => {
    const now = new Date("2026-03-10T12:00:00Z");
    expect(formatAge(new Date("2026-03-10T11:59:30Z"), now)).toBe("just now");
    expect(formatAge(new Date("2026-03-08T11:00:00Z"), now)).toBe("2d ago");
    expect(formatAge(new Date("2025-12-01T00:00:00Z"), now)).toBe("2025-12-01");
  });

  test("a missing dir lists nothing; files that are not sessions are left out", () => {
    const { cwd, env, root } = setup();
    expect(listSessions(join(root, "nope"))).toEqual([]);
    const kept = session(cwd, env, 1, "hi");
    writeFileSync(join(dirname(kept.path), "junk.jsonl"), "not json\n");
    expect(listSessions(dirname(kept.path)).map((s) => s.path)).toEqual([kept.path]);
  });
});

describe("--continue and --resume", () => {
  test("--continue picks the most recently used session of this project", () => {
    const { cwd, env, root } = setup();
    expect(mostRecentSession(cwd, { env })).toBeUndefined();
    session(cwd, env, 10, "a");
    const newest = session(cwd, env, 2, "b");
    session(join(root), env, 0, "another project");
    expect(mostRecentSession(cwd, { env })).toBe(newest.path);
  });

  test("--continue passes over a newer file whose header is damaged, and names it", () => {
    const { cwd, env } = setup();
    const good = session(cwd, env, 10, "a");
    const broken = join(dirname(good.path), "2099-01-01T00-00-00-000Z_broken.jsonl");
    writeFileSync(broken, '{"type":"sess\n{"type":"message"}\n');
    const damaged: string[] = [];
    expect(mostRecentSession(cwd, { env, damaged })).toBe(good.path);
    expect(damaged).toEqual([broken]);
  });

  test("by id prefix or file name prefix, case-insensitively", () => {
    const { cwd, env } = setup();
    const a = session(cwd, env, 3, "a");
    session(cwd, env, 2, "b");
    // Twelve of the sixteen random hex digits: shared by the other session with odds of 1 in 2^48.
    expect(resolveSession(a.header.id.slice(0, 12).toUpperCase(), cwd, { env })).toBe(a.path);
    expect(resolveSession(a.header.id, cwd, { env })).toBe(a.path);
    expect(resolveSession(basename(a.path).slice(0, 30).toLowerCase(), cwd, { env })).toBe(a.path);
  });

  test("an ambiguous prefix is an error that lists the candidates", () => {
    const { cwd, env } = setup();
    const a = session(cwd, env, 3, "alpha question");
    const b = session(cwd, env, 2, "beta question");
    const dir = dirname(a.path);
    // Give both the same id start so the prefix is ambiguous whatever the random ids were.
    const aPath = join(dir, basename(a.path).replace(`_${a.header.id}`, "_abc1111111111111"));
    const bPath = join(dir, basename(b.path).replace(`_${b.header.id}`, "_ABC2222222222222"));
    renameSync(a.path, aPath);
    renameSync(b.path, bPath);

    const error = errorOf(() => resolveSession("abc", cwd, { env }));
    expect(error.exitCode).toBe(2);
    const lines = error.message.split("\n");
    expect(lines[0]).toBe('"abc" matches 2 sessions; give more of the id:');
    expect(lines.slice(1)).toEqual(["  ABC2222222222222  2m ago  beta question", "  abc1111111111111  3m ago  alpha question"]);
    expect(resolveSession("abc2", cwd, { env })).toBe(bPath);
  });

  test("no match, a path, and a fallback to other projects", () => {
    const { cwd, env, root } = setup();
    const here = session(cwd, env, 1, "here");
    const elsewhereCwd = join(root, "other");
    mkdirSync(elsewhereCwd);
    const there = session(elsewhereCwd, env, 1, "there");

    expect(errorOf(() => resolveSession("zzzz", cwd, { env })).message).toStartWith('no session matches "zzzz" in');
    expect(resolveSession(here.path, "/", { env })).toBe(here.path);
    expect(errorOf(() => resolveSession("./missing.jsonl", cwd, { env })).message).toBe(`no session file at ${join(cwd, "missing.jsonl")}`);
    expect(resolveSession(there.header.id, cwd, { env })).toBe(there.path);
    // With an explicit session dir only that dir is searched.
    expect(() => resolveSession(there.header.id, cwd, { env, sessionDir: dirname(here.path) })).toThrow("no session matches");
    expect(() => resolveSession("", cwd, { env })).toThrow("--resume needs");
  });
});
