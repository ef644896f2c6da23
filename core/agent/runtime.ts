import { join } from "node:path";
import { PROVIDERS, getProvider } from "../ai/providers-table.ts";
import type { Model, ThinkingLevel } from "../ai/model.ts";
import { resolveApiKey } from "../auth/keys.ts";
import { subscriptionHeaders } from "../auth/oauth/request-headers.ts";
import { openCredentialSource } from "../auth/open-source.ts";
import type { CredentialSource, ResolvedCredential } from "../auth/source.ts";
import { USAGE_LIMIT_MARK } from "../ai/http/errors.ts";
import type { ModelsConfig } from "../config/models-schema.ts";
import type { Settings } from "../config/settings-schema.ts";
import { OmpError } from "../errors/omp-error.ts";
import { agentDir } from "../paths.ts";
import type { SessionEntry } from "../session/schema.ts";
import { SessionWriter } from "../session/writer.ts";
import { ApprovalGate, type Approver } from "../tools/approval.ts";
import { PathScope } from "../tools/path-scope.ts";
import type { Tool } from "../tools/types.ts";
import { Agent } from "./agent.ts";
import { findContextFiles } from "./context-files.ts";
import { gitSummary } from "./git-summary.ts";
import { defaultModelPattern, knownModels, resolveModel, withLocalModels } from "./models.ts";
import { buildSystemPrompt } from "./system-prompt.ts";
import { toolSpec } from "./tool-specs.ts";

type Env = Record<string, string | undefined>;

export interface RuntimeOptions {
  cwd: string;
  env: Env;
  settings: Settings;
  modelsConfig: ModelsConfig;
  tools: Tool[];
  approver?: Approver;
  /** `--api-key`: applies to the model chosen on the command line. */
  cliKey?: string;
  noSession: boolean;
  sessionDir?: string;
  maxTurns?: number;
  systemPrompt?: { replace?: string; append?: string };
  /** `--add-dir`: directories outside the project the tools may use without asking. */
  addDirs?: string[];
  /** The repository summary, when the caller started it early (it runs git); otherwise started on first use. */
  git?: Promise<string>;
}

export interface ModelSelection {
  model: Model;
  apiKey: string | undefined;
  keySource: string;
  thinking?: ThinkingLevel;
  /** The stored credential in use, when the key came from the vault or the broker. */
  credentialId?: number;
}

/**
 * What every agent of this process shares (settings, models, tools, the system prompt) and how to
 * make one: new, resumed, or on another model. RPC's new_session and switch_session go through
 * here too, so they behave exactly like the command line.
 */
export class Runtime {
  private models: Model[];
  private localProbed = false;
  private store: CredentialSource | null | undefined;
  /** Credentials this process found at their usage limit, and until when. */
  private readonly blocked = new Map<number, number>();
  private prompt: Promise<string> | undefined;

  constructor(readonly options: RuntimeOptions) {
    this.models = knownModels(options.modelsConfig, options.env);
  }

  /** Every model omp knows, running local servers included. */
  async availableModels(): Promise<Model[]> {
    if (!this.localProbed) {
      this.models = await withLocalModels(this.models, this.options.env);
      this.localProbed = true;
    }
    return this.models;
  }

  private credentialStore(): CredentialSource | undefined {
    if (this.store === undefined) this.store = openCredentialSource(this.options.env) ?? null;
    return this.store ?? undefined;
  }

  private hasKey(provider: string): boolean {
    const info = getProvider(provider);
    if (this.options.modelsConfig.providers[provider]?.apiKey) return true;
    if (info?.keyEnv.some((name) => this.options.env[name])) return true;
    return this.credentialStore()?.has(provider) ?? false;
  }

  /** Finds the model for `pattern` (or the default) and its key; errors say what to set. */
  async selectModel(pattern: string | undefined, useCliKey = true): Promise<ModelSelection> {
    await this.credentialStore()?.ready?.();
    let models = this.models;
    let wanted = pattern ?? this.options.settings.model;
    if (wanted === undefined) {
      wanted = defaultModelPattern(models, (p) => this.hasKey(p));
      if (wanted === undefined) {
        models = await this.availableModels();
        wanted = defaultModelPattern(models, (p) => this.hasKey(p));
      }
      if (wanted === undefined) {
        throw new OmpError(
          "no model available: set an API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...), run `omp auth add <provider>`, start a local server (Ollama, llama.cpp, LM Studio, vLLM), or pass --model",
          { exitCode: 2 },
        );
      }
    }
    let choice;
    try {
      choice = resolveModel(wanted, models);
    } catch (error) {
      if (this.localProbed) throw error;
      choice = resolveModel(wanted, await this.availableModels());
    }
    const providerConfig = this.options.modelsConfig.providers[choice.model.provider];
    const key = await resolveApiKey({
      provider: choice.model.provider,
      cliKey: useCliKey ? this.options.cliKey : undefined,
      configKey: providerConfig?.apiKey,
      store: this.credentialStore(),
      env: this.options.env,
      keyless: providerConfig?.auth === "none" ? true : undefined,
    });
    if (!key.ok) {
      const problem = this.credentialStore()?.lastProblem;
      throw new OmpError(problem ? `${problem}\n${key.error}` : key.error, { exitCode: 2 });
    }
    return { model: withCredentialHeaders(choice.model, key.stored), apiKey: key.key, keySource: key.source, thinking: choice.thinking, credentialId: key.stored?.id };
  }

  /** Built once per process: every agent it makes (rpc's new_session, switch_session) shares it. */
  systemPrompt(): Promise<string> {
    this.prompt ??= (this.options.git ?? gitSummary(this.options.cwd)).then((git) =>
      buildSystemPrompt({
        cwd: this.options.cwd,
        tools: this.options.tools.map(toolSpec),
        contextFiles: findContextFiles(this.options.cwd, agentDir(this.options.env as NodeJS.ProcessEnv)),
        git,
        replace: this.options.systemPrompt?.replace,
        append: this.options.systemPrompt?.append,
      }),
    );
    return this.prompt;
  }

  /** A fresh agent; `resumePath` continues that session file instead. */
  async createAgent(selection: ModelSelection, resumePath?: string): Promise<Agent> {
    const { settings } = this.options;
    const secrets = this.secrets(selection.apiKey);
    let writer: SessionWriter | undefined;
    let messages = undefined;
    let messageEntryIds: string[] | undefined;
    let thinking = selection.thinking ?? settings.thinking;
    let resumedModel: string | undefined;
    if (resumePath) {
      // Only a resume reads a session file; a new session does not pay for loading the loader.
      const { branchEntries, buildSessionContext, loadSession } = await import("../session/loader.ts");
      const loaded = loadSession(resumePath);
      const context = buildSessionContext(loaded);
      resumedModel = context.model;
      messages = context.messages;
      messageEntryIds = entryIdsFor(branchEntries(loaded), context.messages.length, context.compaction?.firstKeptEntryId);
      if (!selection.thinking && context.thinkingLevel) thinking = context.thinkingLevel;
      if (!this.options.noSession) writer = SessionWriter.resume(loaded, { secrets });
    } else if (!this.options.noSession) {
      writer = SessionWriter.create({ cwd: this.options.cwd, sessionDir: this.options.sessionDir ?? settings.sessionDir, env: this.options.env as NodeJS.ProcessEnv, secrets });
    }
    const artifactsDir = writer ? writer.path.replace(/\.jsonl$/, "") : join(agentDir(this.options.env as NodeJS.ProcessEnv), "artifacts", `${process.pid}`);
    const modelId = `${selection.model.provider}/${selection.model.id}`;
    return new Agent({
      cwd: this.options.cwd,
      model: selection.model,
      apiKey: selection.apiKey,
      thinking: selection.model.reasoning ? thinking : "off",
      tools: this.options.tools,
      gate: new ApprovalGate(settings.approvalMode, this.options.approver, new PathScope(this.options.cwd, [...(this.options.addDirs ?? []), artifactsDir])),
      systemPrompt: this.systemPrompt(),
      writer,
      messages,
      messageEntryIds,
      artifactsDir,
      compaction: settings.compaction,
      maxRetries: settings.retry.maxRetries,
      maxTurns: this.options.maxTurns,
      announceModel: resumedModel !== modelId,
      secrets,
      rotateCredential: (message) => this.rotate(selection, message),
    });
  }

  /**
   * After a usage limit that says when it resets: blocks the credential in use until then (for
   * every process sharing the vault or broker) and hands over the provider's next one. A session
   * sticks to its credential otherwise.
   */
  private async rotate(selection: ModelSelection, message: string): Promise<{ apiKey: string; model: Model } | { error: string } | undefined> {
    const at = message.indexOf(USAGE_LIMIT_MARK);
    const source = this.credentialStore();
    if (at < 0 || !source || selection.credentialId === undefined) return undefined;
    const until = Date.parse(message.slice(at + USAGE_LIMIT_MARK.length).replace(/\).*$/s, ""));
    if (Number.isNaN(until)) return undefined;
    const provider = selection.model.provider;
    await source.block(selection.credentialId, provider, until);
    this.blocked.set(selection.credentialId, until);
    const next = await source.resolve(provider, new Set(this.blocked.keys()));
    if (!next) {
      const earliest = new Date(Math.min(...this.blocked.values())).toISOString();
      return { error: `every stored ${provider} credential has reached its usage limit; the earliest resets at ${earliest}` };
    }
    selection.credentialId = next.id;
    selection.apiKey = next.key;
    selection.model = withCredentialHeaders(selection.model, next);
    return { apiKey: next.key, model: selection.model };
  }

  /**
   * Values that must never reach a file: the key in use and every provider key in the
   * environment (a command the model runs sees them all).
   */
  secrets(apiKey: string | undefined): string[] {
    const fromEnv = PROVIDERS.flatMap((provider) => provider.keyEnv.map((name) => this.options.env[name]));
    // Every configured and stored secret, not only the one in use: a tool's output or an echoed error may show any of them.
    const configured = Object.values(this.options.modelsConfig.providers).map((provider) => {
      const key = provider.apiKey?.trim();
      if (key === undefined || key.startsWith("!")) return undefined;
      return /^[A-Z_][A-Z0-9_]*$/.test(key) ? this.options.env[key] : key;
    });
    const stored = this.credentialStore()?.secrets() ?? [];
    return [
      ...new Set([apiKey, this.options.cliKey, ...fromEnv, ...configured, ...stored].filter((value): value is string => typeof value === "string" && value !== "")),
    ];
  }
}

/** The model with the headers a subscription backend wants for this credential (the ChatGPT account, Copilot's editor identity). */
function withCredentialHeaders(model: Model, stored: ResolvedCredential | undefined): Model {
  const extra = subscriptionHeaders(model.provider, stored?.credential);
  return extra ? { ...model, headers: { ...model.headers, ...extra } } : model;
}

/**
 * The entry id of each message of a resumed context, from its branch's entries: after a
 * compaction the first message is its summary (no entry of its own), then the message entries of
 * the branch from firstKeptEntryId on.
 */
function entryIdsFor(branch: readonly SessionEntry[], count: number, firstKept: string | undefined): string[] {
  const ids = branch
    .filter((entry) => entry.type === "message")
    .map((entry) => entry.id);
  if (firstKept === undefined) return ids.slice(-count);
  const kept = ids.slice(ids.indexOf(firstKept));
  return ["", ...kept].slice(-count);
}
