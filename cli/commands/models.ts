import { resolve } from "node:path";
import { Runtime } from "../../core/agent/runtime.ts";
import { knownModels } from "../../core/agent/models.ts";
import { listSources, readModelLists } from "../../core/agent/served-models.ts";
import { loadDotenv } from "../../core/config/dotenv.ts";
import { loadModelsConfig } from "../../core/config/models.ts";
import { loadSettings } from "../../core/config/settings.ts";
import { writeStdout } from "../shared/write.ts";

export interface ModelsFlags {
  refresh?: boolean;
  json?: boolean;
}

/**
 * `omp models [--refresh]`: what each provider with a key serves now, from its model-list
 * endpoint (cached for a day; --refresh asks again), against omp's catalog: `new` for a model omp
 * did not know (usable now), `retired` for a catalog model its provider no longer lists.
 */
export async function runModels(flags: ModelsFlags): Promise<number> {
  const cwd = resolve(process.cwd());
  loadDotenv({ cwd, env: process.env });
  const env = process.env;
  const { settings } = loadSettings({ cwd, env });
  const { config: modelsConfig } = loadModelsConfig({ cwd, env });
  const runtime = new Runtime({ cwd, env, settings, modelsConfig, tools: [], noSession: true });
  const results = await runtime.refreshModelLists(flags.refresh === true);
  const lists = readModelLists(env);
  const catalog = knownModels(modelsConfig, env);
  const sources = listSources(modelsConfig, env);
  const report = sources.flatMap((source) => {
    const list = lists.find((l) => l.provider === source.provider);
    const failure = results.find((r) => r.provider === source.provider && !r.ok);
    if (!list && !failure) return [];
    const ours = catalog.filter((m) => m.provider === source.provider);
    const served = (list?.models ?? []).map((m) => ({ id: m.id, name: m.name, new: !ours.some((c) => c.id === m.id) }));
    const retired = list && list.models.length > 0 ? ours.filter((m) => !list.models.some((l) => l.id === m.id)).map((m) => m.id) : [];
    return [{ provider: source.provider, listedAt: list ? new Date(list.fetchedAt).toISOString() : null, error: failure?.error ?? null, served, retired }];
  });
  if (flags.json) {
    await writeStdout(`${JSON.stringify({ providers: report }, null, 2)}\n`);
    return 0;
  }
  if (report.length === 0) {
    await writeStdout("No provider to ask: set an API key (omp auth add <provider>, or ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...).\n");
    return 0;
  }
  const lines: string[] = [];
  for (const entry of report) {
    const when = entry.listedAt ? `listed ${entry.listedAt.slice(0, 16).replace("T", " ")} UTC` : "never listed";
    lines.push(`${entry.provider} (${entry.served.length} models, ${when})${entry.error ? ` — could not list now: ${entry.error}` : ""}`);
    for (const m of entry.served) lines.push(`  ${`${entry.provider}/${m.id}`.padEnd(48)} ${m.new ? "new     " : "        "}${m.name ?? ""}`.trimEnd());
    for (const id of entry.retired) lines.push(`  ${`${entry.provider}/${id}`.padEnd(48)} retired: no longer listed by ${entry.provider}`);
  }
  await writeStdout(`${lines.join("\n")}\n`);
  return 0;
}
