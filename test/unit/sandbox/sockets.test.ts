import { expect, test } from "bun:test";
import { mkdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { hiddenSockets } from "../../../core/sandbox/sockets.ts";
import { tempDir } from "../../support/temp.ts";

test("bubblewrap's list covers sockets in the runtime dir and its sub-folders, bound or not in this network namespace; allowSockets keeps one", () => {
  const runtime = realpathSync(tempDir("omp-runtime-"));
  mkdirSync(join(runtime, "docker"));
  const socket = join(runtime, "docker", "docker.sock");
  // Bound and closed: the file stays, as a rootless docker's in another network namespace is absent from /proc/net/unix.
  const made = Bun.spawnSync(["python3", "-c", `import socket; s = socket.socket(socket.AF_UNIX); s.bind(${JSON.stringify(socket)}); s.close()`]);
  expect(made.exitCode).toBe(0);
  expect(hiddenSockets({ XDG_RUNTIME_DIR: runtime }, [])).toContain(socket);
  expect(hiddenSockets({ XDG_RUNTIME_DIR: runtime }, [join(runtime, "docker")])).not.toContain(socket);
});
