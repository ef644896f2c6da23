import { NoModelError, type ModelSelection, type Runtime } from "../../core/agent/runtime.ts";
import { checkApiKey } from "../../core/agent/served-models.ts";
import { CredentialStore } from "../../core/auth/store.ts";
import { describeError } from "../../core/errors/omp-error.ts";
import { agentDbPath, displayPath } from "../../core/paths.ts";

/**
 * One line from the terminal in its normal (cooked) mode, through Bun.stdin's stream: the
 * interactive mode reads that stream next, and process.stdin would keep it locked. A key is read
 * with echo off (stty), so it is not left on the screen. Aborting `signal` ends a pending read
 * with "" and leaves the stream readable (releasing the reader rejects the read, it does not
 * cancel the stream).
 */
async function readLine(prompt: string, hidden = false, signal?: AbortSignal): Promise<string> {
  if (signal?.aborted) return "";
  const stty = (mode: string) => Bun.spawnSync(["stty", mode], { stdin: "inherit", stdout: "ignore", stderr: "ignore" });
  // Echo goes off before the prompt shows: a key typed (or pasted) the moment it appears is never echoed.
  if (hidden) stty("-echo");
  process.stderr.write(prompt);
  const reader = Bun.stdin.stream().getReader();
  const release = () => reader.releaseLock();
  signal?.addEventListener("abort", release, { once: true });
  const decoder = new TextDecoder();
  let line = "";
  try {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) break;
      line += decoder.decode(value, { stream: true });
      if (line.includes("\n")) break;
    }
  } finally {
    signal?.removeEventListener("abort", release);
    reader.releaseLock();
    if (hidden) {
      stty("echo");
      process.stderr.write("\n");
    }
  }
  return line.split("\n")[0]!;
}

const KEY_PROVIDERS = [
  { id: "anthropic", name: "Anthropic (Claude)" },
  { id: "openai", name: "OpenAI (GPT)" },
  { id: "google", name: "Google (Gemini)" },
  { id: "openrouter", name: "OpenRouter (many models, one key)" },
];

/**
 * A subscription login, the same one as `omp auth login`, read from this terminal. When the
 * browser finishes it, the paste prompt's read is ended so the interactive mode can have stdin.
 */
async function subscriptionLogin(env: NodeJS.ProcessEnv): Promise<boolean> {
  const { chooseProvider, loginOnTerminal, refuseInBrokerMode } = await import("./auth-login.ts");
  const done = new AbortController();
  try {
    refuseInBrokerMode("log in");
    const provider = await chooseProvider(undefined, (prompt) => readLine(prompt));
    const message = await loginOnTerminal(provider, (prompt) => readLine(prompt ?? "", false, done.signal), env);
    process.stderr.write(`\n${message}\n`);
    return true;
  } catch (error) {
    process.stderr.write(`${describeError(error)}\n`);
    return false;
  } finally {
    done.abort();
  }
}

/**
 * The interactive mode's first run with nothing to talk to: instead of exiting, offer to store an
 * API key in the vault (agent.db), to log in with a subscription, or to look again for a local
 * server once one is started, then
 * carry on with the model that gives. Ctrl+C or `q` leaves with the original error.
 */
export async function selectWithSetup(runtime: Runtime, pick: () => Promise<ModelSelection>): Promise<ModelSelection> {
  try {
    return await pick();
  } catch (error) {
    if (!(error instanceof NoModelError)) throw error;
    const env = runtime.options.env as NodeJS.ProcessEnv;
    for (;;) {
      const lines = [
        "",
        "omp has no model to use yet: no API key is set and no local server (Ollama, llama.cpp, LM Studio, vLLM) is running.",
        "Set one up now:",
        ...KEY_PROVIDERS.map((p, i) => `  ${i + 1}) paste an API key for ${p.name}`),
        "  l) log in with a subscription (Claude Pro/Max, ChatGPT Plus/Pro, GitHub Copilot, Gemini CLI)",
        "  r) look again for a local server (start it first)",
        "  q) quit",
        "",
      ];
      process.stderr.write(lines.join("\n"));
      const choice = (await readLine("Choice: ")).trim().toLowerCase();
      if (choice === "q" || choice === "") throw error;
      if (choice === "r") {
        runtime.reloadCredentials();
      } else if (choice === "l") {
        if (!(await subscriptionLogin(env))) continue;
        runtime.reloadCredentials();
      } else {
        const provider = KEY_PROVIDERS[Number(choice) - 1];
        if (!provider) continue;
        const key = (await readLine(`API key for ${provider.name} (input hidden): `, true)).trim();
        if (key === "" || /[\s\p{Cc}]/u.test(key)) {
          process.stderr.write("That is not a key (empty, or it has spaces or line breaks); try again.\n");
          continue;
        }
        process.stderr.write(`Checking the key with ${provider.name}…\n`);
        const checked = await checkApiKey(runtime.options.modelsConfig, env, provider.id, key);
        if (checked.verdict === "refused") {
          process.stderr.write(`${provider.name} refused that key (${checked.why}); it was not stored. Paste another, or pick another way.\n`);
          continue;
        }
        if (checked.verdict === "unchecked") process.stderr.write(`The key could not be checked now (${checked.why}); storing it anyway.\n`);
        const store = CredentialStore.open(agentDbPath(env));
        try {
          const stored = store.add(provider.id, key);
          process.stderr.write(`Stored ${stored.masked} for ${provider.id} in ${displayPath(store.path)}.\n`);
        } finally {
          store.close();
        }
        runtime.reloadCredentials();
      }
      try {
        return await pick();
      } catch (again) {
        if (!(again instanceof NoModelError)) throw again;
        process.stderr.write("Still nothing to use.\n");
      }
    }
  }
}
