import { copyFileSync, existsSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { tempDir } from "./temp.ts";

/**
 * The whole run gets a HOME of its own (bunfig.toml preloads this module), removed when it ends:
 * code under test that falls back on HOME (~/.omp/agent: sessions, usage, credentials, settings)
 * never touches the home of the developer or the CI machine running the suite. A test that needs
 * a particular HOME still passes its own. What the tests build and commit with comes along: the
 * Rust toolchain's homes, and a copy of the git identity (a copy, so nothing writes the original).
 */
const realHome = process.env.HOME || userInfo().homedir;
for (const [name, dir] of [["CARGO_HOME", ".cargo"], ["RUSTUP_HOME", ".rustup"]] as const) {
  if (process.env[name] === undefined && existsSync(join(realHome, dir))) process.env[name] = join(realHome, dir);
}
const home = tempDir("omp-test-home-");
if (existsSync(join(realHome, ".gitconfig"))) copyFileSync(join(realHome, ".gitconfig"), join(home, ".gitconfig"));
process.env.HOME = home;
/** The HOME the run started with, which no test may write. */
export const REAL_HOME = realHome;
