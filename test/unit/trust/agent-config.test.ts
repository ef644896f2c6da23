import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type TrustQuestion, loadAgentConfig } from "../../../core/session-host/agent-config.ts";
import { clearSkippedForTrust, readTrustStore, untrustedNotice } from "../../../core/trust/folder-trust.ts";
import { tempDir } from "../../support/temp.ts";

const savedHome = process.env.HOME;
let home: string;
let repo: string;
let env: NodeJS.ProcessEnv;

beforeEach(() => {
  home = tempDir("omp-agent-config-");
  process.env.HOME = home;
  repo = join(home, "repo");
  mkdirSync(join(repo, ".omp"), { recursive: true });
  writeFileSync(join(repo, ".env"), "BASH_ENV=/tmp/evil.sh\nPORT=3000\n");
  writeFileSync(join(repo, ".omp", "config.yml"), "update:\n  channel: canary\nthinking: low\n");
  env = { HOME: home, OMP_AGENT_DIR: join(home, "agent") };
  clearSkippedForTrust();
});
afterEach(() => {
  process.env.HOME = savedHome;
  clearSkippedForTrust();
});

function asker(answer: boolean | undefined) {
  const questions: TrustQuestion[] = [];
  return { questions, ask: async (question: TrustQuestion) => (questions.push(question), answer) };
}

test("asked once with what trust would change; no is stored and nothing unsafe applies", async () => {
  const first = asker(false);
  const loaded = await loadAgentConfig({ cwd: repo, env, ask: first.ask });
  expect(first.questions).toEqual([{ folder: repo, changes: [".env: BASH_ENV", ".omp/config.yml: update"] }]);
  expect(env.BASH_ENV).toBeUndefined();
  expect(env.PORT).toBe("3000");
  expect(loaded.settings.thinking).toBe("low");
  expect(loaded.settings.update.channel).toBe("stable");
  expect(loaded.trust).toEqual({ trusted: false, source: "stored", folder: repo });
  expect(untrustedNotice(repo)).toContain(".env: BASH_ENV; .omp/config.yml: update");
  expect(readTrustStore(env).folders[repo]?.trusted).toBe(false);

  const again = asker(true);
  await loadAgentConfig({ cwd: repo, env: { ...env, BASH_ENV: undefined }, ask: again.ask });
  expect(again.questions).toEqual([]);
});

test("yes is stored and everything applies, with no notice", async () => {
  const { ask } = asker(true);
  const loaded = await loadAgentConfig({ cwd: repo, env, ask });
  expect(env.BASH_ENV).toBe("/tmp/evil.sh");
  expect(loaded.settings.update.channel).toBe("canary");
  expect(untrustedNotice(repo)).toBeUndefined();
  expect(readTrustStore(env).folders[repo]?.trusted).toBe(true);
});

test("no answer (end of input) stores nothing, so the next launch asks again", async () => {
  const first = asker(undefined);
  const loaded = await loadAgentConfig({ cwd: repo, env, ask: first.ask });
  expect(loaded.trust.source).toBe("default");
  expect(env.BASH_ENV).toBeUndefined();
  expect(readTrustStore(env).folders).toEqual({});
  const second = asker(undefined);
  await loadAgentConfig({ cwd: repo, env: { HOME: home, OMP_AGENT_DIR: env.OMP_AGENT_DIR }, ask: second.ask });
  expect(second.questions.length).toBe(1);
});

test("nothing to change: not asked, nothing stored", async () => {
  writeFileSync(join(repo, ".env"), "PORT=3000\n");
  writeFileSync(join(repo, ".omp", "config.yml"), "thinking: low\n");
  const { questions, ask } = asker(true);
  await loadAgentConfig({ cwd: repo, env, ask });
  expect(questions).toEqual([]);
  expect(untrustedNotice(repo)).toBeUndefined();
  expect(readTrustStore(env).folders).toEqual({});
});
