import { describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { PathPolicy } from "../../../core/sandbox/path-policy.ts";
import { buildPolicy } from "../../../core/sandbox/policy.ts";
import { join } from "node:path";
import { planRewind, rewindFiles } from "../../../core/session/checkpoints/rewind.ts";
import { beginWrites } from "../../../core/session/checkpoints/record.ts";
import { pruneOrphanCheckpoints } from "../../../core/session/checkpoints/prune.ts";
import { BlobStore, checkpointDir, sha256 } from "../../../core/session/checkpoints/store.ts";
import { SessionWriter } from "../../../core/session/writer.ts";
import { tempDir } from "../../support/temp.ts";
import { assistant, user } from "./fixtures.ts";

const blobFiles = (dir: string) => readdirSync(join(dir, "blobs"), { recursive: true }).filter((name) => String(name).length === 64 + 3);

describe("checkpoint store", () => {
  test("a content is stored once however often it is put, under its sha256", () => {
    const dir = tempDir("omp-checkpoints-");
    const store = new BlobStore(dir, 1 << 20);
    const bytes = Buffer.from("the same content\n");
    const first = store.put(bytes);
    expect(store.put(Buffer.from("the same content\n"))).toBe(first);
    expect(first).toBe(sha256(bytes));
    expect(blobFiles(dir)).toHaveLength(1);
    expect(store.get(first)?.toString()).toBe("the same content\n");
    // A blob damaged on disk is no checkpoint.
    writeFileSync(join(dir, "blobs", first.slice(0, 2), first), "tampered");
    expect(store.get(first)).toBeUndefined();
  });

  test("a content travels in its journal record only up to 4 KiB, and only up to 4 MiB of them per store; adopted later, it is stored once and only under its own sha256", () => {
    const dir = tempDir("omp-checkpoints-");
    const store = new BlobStore(dir, 1 << 30);
    expect(store.inline(Buffer.alloc(4097, 1))).toBe(false);
    let carried = 0;
    while (store.inline(Buffer.alloc(4096, 2))) carried++;
    expect(carried).toBe(1024);
    // The budget is the store's, whichever object asks.
    expect(new BlobStore(dir, 1 << 30).inline(Buffer.alloc(1, 3))).toBe(false);
    expect(new BlobStore(tempDir("omp-checkpoints-"), 1 << 30).inline(Buffer.alloc(1, 3))).toBe(true);
    const bytes = Buffer.from("carried\n");
    store.adopt(sha256(Buffer.from("something else")), bytes);
    expect(existsSync(join(dir, "blobs"))).toBe(false);
    store.adopt(sha256(bytes), bytes);
    store.adopt(sha256(bytes), bytes);
    expect(blobFiles(dir)).toHaveLength(1);
    expect(store.get(sha256(bytes))).toEqual(bytes);
  });

  test("past the cap the least recently used contents go, never the one just stored; one bigger than the cap is not kept", () => {
    const dir = tempDir("omp-checkpoints-");
    const store = new BlobStore(dir, 3000);
    const [a, b] = [store.put(Buffer.alloc(1200, "a")), store.put(Buffer.alloc(1200, "b"))];
    const path = (sha: string) => join(dir, "blobs", sha.slice(0, 2), sha);
    utimesSync(path(a), new Date(1_000_000), new Date(1_000_000));
    utimesSync(path(b), new Date(2_000_000), new Date(2_000_000));
    // a is used again: now b is the oldest.
    expect(store.put(Buffer.alloc(1200, "a"))).toBe(a);
    const c = store.put(Buffer.alloc(1200, "c"));
    expect(existsSync(path(b))).toBe(false);
    expect(existsSync(path(a)) && existsSync(path(c))).toBe(true);
    expect(blobFiles(dir).reduce((sum, name) => sum + statSync(join(dir, "blobs", String(name))).size, 0)).toBeLessThanOrEqual(3000);
    expect(store.put(Buffer.alloc(3001, "d"))).toBe("unsaved");
  });

  test("a file whose earlier content fell out of the capped store is reported as not restorable; the others come back", () => {
    const root = tempDir("omp-checkpoints-");
    const writer = SessionWriter.create({ cwd: join(root, "project"), sessionDir: join(root, "sessions") });
    const first = writer.append({ type: "message", message: user("change both") });
    const reply = writer.append({ type: "message", message: assistant("on it", "toolUse") });
    const [small, big] = [join(root, "small.txt"), join(root, "big.txt")];
    writeFileSync(small, "small before\n");
    writeFileSync(big, "B".repeat(5000));
    const target = { session: writer.path, cwd: root, sessionId: writer.header.id, entryId: reply.id, maxBytes: 4096 };
    const pending = beginWrites(target, [small, big], "call_1");
    writeFileSync(small, "small after\n");
    writeFileSync(big, "changed");
    pending.done();
    const plan = planRewind({ writer }, first.id);
    expect(plan.restore.map((file) => file.path)).toEqual([small]);
    expect(plan.notRestorable).toEqual([{ path: big, reason: "its earlier content was not kept (over the checkpoint store's size cap)" }]);
    const result = rewindFiles(plan, 4096);
    expect(result.restored).toEqual([small]);
    expect(readFileSync(small, "utf8")).toBe("small before\n");
    expect(readFileSync(big, "utf8")).toBe("changed");
    // The restore is recorded: a second plan finds nothing left to do for it.
    expect(planRewind({ writer }, first.id).restore).toEqual([]);
    expect(existsSync(join(checkpointDir(writer.path), "journal.ndjson"))).toBe(true);
    writer.close();
  });

  test("a restore a planted link would send out of the writable roots (or onto the deny-list) is not made", () => {
    const root = tempDir("omp-checkpoints-");
    const [project, home] = [join(root, "project"), join(root, "home")];
    mkdirSync(join(project, "sub"), { recursive: true });
    mkdirSync(join(project, ".git"));
    mkdirSync(home);
    const writer = SessionWriter.create({ cwd: project, sessionDir: join(root, "sessions") });
    const first = writer.append({ type: "message", message: user("make a file") });
    const reply = writer.append({ type: "message", message: assistant("on it", "toolUse") });
    const made = join(project, "sub", "f.txt");
    const pending = beginWrites({ session: writer.path, cwd: project, sessionId: writer.header.id, entryId: reply.id, maxBytes: 4096 }, [made], "call_1");
    writeFileSync(made, "same\n");
    pending.done();
    // The model's bash swaps the folder for a link to the home, where the user's file has the same content.
    rmSync(join(project, "sub"), { recursive: true });
    symlinkSync(home, join(project, "sub"));
    writeFileSync(join(home, "f.txt"), "same\n");
    const settings = { mode: "workspace-write" as const, network: "off" as const, writable: [], denyRead: [], envAllow: [], allowSockets: [] };
    const paths = new PathPolicy(buildPolicy({ settings, cwd: project, addDirs: [], home, env: {} }), project);
    const result = rewindFiles(planRewind({ writer }, first.id), 4096, paths);
    expect(result.restored).toEqual([]);
    expect(result.notRestorable[0]!.reason).toContain(`it now leads to ${join(home, "f.txt")} through a link`);
    expect(readFileSync(join(home, "f.txt"), "utf8")).toBe("same\n");
    writer.close();
  });

  test("a session's checkpoints go with it: deleting the session file is enough for the next session to remove them", () => {
    const root = tempDir("omp-checkpoints-");
    const options = { cwd: join(root, "project"), sessionDir: join(root, "sessions") };
    const [gone, kept] = [SessionWriter.create(options), SessionWriter.create(options)];
    for (const writer of [gone, kept]) writer.append({ type: "message", message: user("hello") });
    const file = join(root, "f.txt");
    writeFileSync(file, "x");
    beginWrites({ session: gone.path, cwd: root, sessionId: gone.header.id, entryId: null, maxBytes: 1 << 20 }, [file]).done();
    beginWrites({ session: kept.path, cwd: root, sessionId: kept.header.id, entryId: null, maxBytes: 1 << 20 }, [file]).done();
    expect(existsSync(checkpointDir(gone.path)) && existsSync(checkpointDir(kept.path))).toBe(true);
    gone.close();
    rmSync(gone.path);
    // Swept when a session first records a change in a process: here a third session of the dir.
    pruneOrphanCheckpoints(join(root, "sessions", "other.jsonl"), root);
    expect(existsSync(checkpointDir(gone.path))).toBe(false);
    expect(existsSync(checkpointDir(kept.path))).toBe(true);
    kept.close();
  });
});
