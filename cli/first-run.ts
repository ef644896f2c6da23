import { NoModelError, type ModelSelection, type Runtime } from "../core/agent/runtime.ts";
import { CredentialStore } from "../core/auth/store.ts";
import { agentDbPath, displayPath } from "../core/paths.ts";

/**
 * One line from the terminal in its normal (cooked) mode, through Bun.stdin's stream: the
 * interactive mode reads that stream next, and process.stdin would keep it locked. A key is read
 * with echo off (stty), so it is not left on the screen.
 */
async function readLine(prompt: string, hidden = false): Promise<string> {
  process.stderr.write(prompt);
  const stty = (mode: string) => Bun.spawnSync(["stty", mode], { stdin: "inherit", stdout: "ignore", stderr: "ignore" });
  if (hidden) stty("-echo");
  const reader = Bun.stdin.stream().getReader();
  const decoder = new TextDecoder();
  let line = "";
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      line += decoder.decode(value, { stream: true });
      if (line.includes("\n")) break;
    }
  } finally {
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
 * The interactive mode's first run with nothing to talk to: instead of exiting, offer to store an
 * API key in the vault (agent.db) or to look again for a local server once one is started, then
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
        "  r) look again for a local server (start it first)",
        "  q) quit",
        "(`omp auth login` signs in with a subscription once your omp has it.)",
        "",
      ];
      process.stderr.write(lines.join("\n"));
      const choice = (await readLine("Choice: ")).trim().toLowerCase();
      if (choice === "q" || choice === "") throw error;
      if (choice === "r") {
        runtime.reloadCredentials();
      } else {
        const provider = KEY_PROVIDERS[Number(choice) - 1];
        if (!provider) continue;
        const key = (await readLine(`API key for ${provider.name} (input hidden): `, true)).trim();
        if (key === "" || /[\s\p{Cc}]/u.test(key)) {
          process.stderr.write("That is not a key (empty, or it has spaces or line breaks); try again.\n");
          continue;
        }
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
