import { join } from "node:path";
import { PROVIDERS, getProvider, hasEnvCredentials } from "../ai/providers-table.ts";
import type { Model, ThinkingLevel } from "../ai/model.ts";
import type { Usage } from "../ai/messages.ts";
import { refusedKeyHint, resolveApiKey } from "../auth/keys.ts";
import { modelForCredential } from "../auth/oauth/subscription-model.ts";
import { openCredentialSource } from "../broker/credential-source.ts";
import type { CredentialSource, ResolvedCredential } from "../auth/source.ts";
import type { ProviderFailure } from "../ai/failure.ts";
import type { ModelsConfig } from "../config/models-schema.ts";
import type { Settings } from "../config/settings-schema.ts";
import type { LoadedSettings } from "../config/settings.ts";
import { assignInPlace } from "../config/merge.ts";
import { OmpError } from "../errors/omp-error.ts";
import { Extensions } from "../extensions/extensions.ts";
import { skillsForSession } from "../extensions/skills-session.ts";
import { LspSession } from "../lsp/session.ts";
import { agentDir, displayPath, homeDir } from "../paths.ts";
import { buildPolicy, settingPath } from "../sandbox/policy.ts";
import { secretValuesIn } from "../sandbox/env.ts";
import type { SessionDirOptions } from "../session/paths.ts";
import type { SessionEntry } from "../session/schema.ts";
import { SessionWriter } from "../session/writer.ts";
import { ApprovalGate, type Approver } from "../tools/approval.ts";
import { EgressHosts } from "../permissions/egress.ts";
import { PathScope } from "../tools/path-scope.ts";
import { PathPolicy } from "../sandbox/path-policy.ts";
import type { EditMode } from "../config/settings-schema.ts";
import { editModeFor } from "../tools/edit/mode.ts";
import { planModeTool, withEditMode } from "../tools/registry.ts";
import type { EditorBridge, Questioner, Tool, ToolSource } from "../tools/types.ts";
import type { SessionMode } from "../session/modes.ts";
import { Agent } from "./agent.ts";
import type { ExtensionsFactory } from "../extensions/agent-extensions.ts";
import { findPromptFiles, promptArgument } from "./context-files.ts";
import { gitSummary } from "./git-summary.ts";
import { configuredRoleModel, expandRoleAlias, modelForRole, rolePatterns } from "./model-roles.ts";
import { defaultModelPattern, knownModels, resolveModel, resolveModelPatterns, withLocalModels } from "./models.ts";
import { type Facts, type RequestFrame, currentFacts, frameOf } from "./request-frame.ts";
import { type RefreshResult, listSources, mergeServedModels, readModelLists, refreshModelLists, retiredNote, uncataloguedModel } from "./served-models.ts";
import { buildSystemPrompt } from "./system-prompt.ts";
import { wantsMemoryBlock } from "../memory/banks.ts";
import { findRuleFiles } from "../rules/find.ts";
import { type Rulebook, bucketRules, rulesSection, streamRulesFor } from "../rules/rulebook.ts";
import type { ProviderList } from "../ai/model-lists.ts";
import { toolSpec } from "./tool-specs.ts";
import { ObservedLimits } from "../usage/observed.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

type Env = Record<string, string | undefined>;

export interface RuntimeOptions {
  cwd: string;
  env: Env;
  settings: Settings;
  modelsConfig: ModelsConfig;
  tools: Tool[];
  /** Tools added at run time (MCP servers), after `tools`. */
  toolSource?: ToolSource;
  approver?: Approver;
  /** Answers the ask tool and plan approvals (the session host's question requests). */
  questioner?: Questioner;
  /** `--api-key`: applies to the model chosen on the command line. */
  cliKey?: string;
  noSession: boolean;
  sessionDir?: string;
  maxTurns?: number;
  systemPrompt?: { replace?: string; append?: string };
  /** `--add-dir`: directories outside the project the tools may use without asking. */
  addDirs?: string[];
  /** `--allow-host`: hosts web_fetch, web_search and MCP may reach without asking, like web.allowHosts. */
  allowHosts?: string[];
  /** The repository summary, when the caller started it early (it runs git); otherwise started on first use. */
  git?: Promise<string>;
  /** `--thinking`: wins over a resumed session's level (and is recorded in it). */
  thinking?: ThinkingLevel;
  /** Offer the skill tool when there are skills (false: `--tools` left it out, or settings disabled it). */
  skillTool?: boolean;
  /** Hooks and extensions for every agent made here. */
  extensions?: ExtensionsFactory;
  /** The extensions registry, when the caller made it first to record hooks, agents and TS extensions in it. */
  registry?: Extensions;
  /** Follow credential changes on the auth broker while the process runs (interactive and rpc modes; print mode ends too soon to need it). */
  liveCredentials?: boolean;
  /** An editor's files and terminal for the tools (ACP clients that offer them). */
  editor?: EditorBridge;
  /** `--models a,b,c`: the models Ctrl+P and rpc cycle_model go through, as patterns. */
  cycleModels?: string[];
  /** Called with every model reply's usage (the usage store); absent with --no-session. */
  recordUsage?: (model: Model, usage: Usage) => void;
  /** The settings files read again as at start (the same overlays, flags, profile and trust); see reloadSettings. */
  loadSettings?: () => LoadedSettings;
}

/** Nothing to talk to: no key for any provider and no local server. The interactive mode offers set-up instead. */
export class NoModelError extends OmpError {}

export interface ModelSelection {
  /** The provider no longer lists this model (see served-models.ts): it will likely fail. */
  warning?: string;
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
  /** The system prompt per edit format: it lists the tools, and the edit tool differs by model. */
  private readonly prompts = new Map<EditMode, Promise<string>>();
  private facts: Promise<Facts> | undefined;
  private rules: Promise<Rulebook> | undefined;
  private lists: ProviderList[] | undefined;
  private skills: { tools: Tool[]; promptSection: string } | undefined;
  /** Skills, markdown commands and the other extensions of the working directory, each loaded on first use. */
  readonly extensions: Extensions;
  /** The accounts' limits as responses told them (the status line's warning reads them). */
  readonly observedLimits = new ObservedLimits();

  constructor(readonly options: RuntimeOptions) {
    this.models = knownModels(options.modelsConfig, options.env);
    this.extensions = options.registry ?? new Extensions({ cwd: options.cwd, env: options.env as NodeJS.ProcessEnv });
  }

  /** The selected tools, and the skill tool when skills are installed; the same for every agent of the process. */
  tools(): Tool[] {
    this.skills ??= skillsForSession(this.extensions, this.options.tools, this.options.skillTool !== false);
    return this.skills.tools;
  }

  /**
   * The providers' cached model lists (read once; the file exists only once omp has fetched
   * some), merged into the catalog so that a model a provider added is usable.
   */
  private servedLists(): ProviderList[] {
    if (this.lists === undefined) {
      this.lists = readModelLists(this.options.env);
      this.models = mergeServedModels(this.models, this.lists, listSources(this.options.modelsConfig, this.options.env)).models;
    }
    return this.lists;
  }

  /** Every model omp knows, running local servers included. */
  async availableModels(): Promise<Model[]> {
    this.servedLists();
    if (!this.localProbed) {
      this.models = await withLocalModels(this.models, this.options.env);
      this.localProbed = true;
    }
    return this.models;
  }

  private credentialStore(): CredentialSource | undefined {
    if (this.store === undefined) {
      this.store = openCredentialSource(this.options.env) ?? null;
      if (this.options.liveCredentials) this.store?.follow?.();
    }
    return this.store ?? undefined;
  }

  /**
   * The settings files changed (/settings wrote one): reads them again into the settings object
   * every agent of the process shares, so whatever reads a setting at use time follows. Returns
   * the layers, for showing where each value comes from.
   */
  reloadSettings(): LoadedSettings | undefined {
    const loaded = this.options.loadSettings?.();
    if (loaded) assignInPlace(this.options.settings as Record<string, unknown>, loaded.settings as Record<string, unknown>);
    return loaded;
  }

  /** Lets go of the credentials (the vault, the broker's stream) when the process is done with them. */
  /** Where this session's files are: `--session-dir`, else the `sessionDir` setting, else the project's folder in the agent dir. */
  sessionDirOptions(): SessionDirOptions {
    const sessionDir = this.options.sessionDir ?? this.options.settings.sessionDir;
    return { ...(sessionDir === undefined ? {} : { sessionDir }), env: this.options.env as NodeJS.ProcessEnv };
  }

  closeCredentials(): void {
    this.store?.close();
    this.store = null;
  }

  /** Keys were stored since this process looked (first-run set-up): look again. */
  reloadCredentials(): void {
    this.store?.close();
    this.store = undefined;
    this.localProbed = false;
  }

  private hasKey(provider: string): boolean {
    const info = getProvider(provider);
    if (this.options.modelsConfig.providers[provider]?.apiKey) return true;
    if (info && hasEnvCredentials(info, this.options.env)) return true;
    return this.credentialStore()?.has(provider) ?? false;
  }

  /** A model this user can call: a local server, a keyless provider, or one with a key. */
  private usable(model: Model): boolean {
    return getProvider(model.provider)?.local === true || this.options.modelsConfig.providers[model.provider]?.auth === "none" || this.hasKey(model.provider);
  }

  /** {@link usable}, answered once per provider for one lookup: sorting asks at every comparison, and a key may be a vault read away. */
  private usableOnce(): (model: Model) => boolean {
    const known = new Map<string, boolean>();
    return (model) => {
      let answer = known.get(model.provider);
      if (answer === undefined) known.set(model.provider, (answer = this.usable(model)));
      return answer;
    };
  }

  /** Finds the model for `pattern` (or the default) and its key; errors say what to set. */
  async selectModel(pattern: string | undefined, useCliKey = true): Promise<ModelSelection> {
    await this.credentialStore()?.ready?.();
    const lists = this.servedLists();
    let models = this.models;
    const given = pattern ?? this.options.settings.model;
    let wanted = given === undefined ? rolePatterns(this).default : expandRoleAlias(this, given);
    if (wanted === undefined) {
      wanted = defaultModelPattern(models, (p) => this.hasKey(p), this.options.env);
      if (wanted === undefined) {
        models = await this.availableModels();
        wanted = defaultModelPattern(models, (p) => this.hasKey(p), this.options.env);
      }
      if (wanted === undefined) {
        throw new NoModelError(
          "no model available: set an API key (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...), run `omp auth add <provider>`, start a local server (Ollama, llama.cpp, LM Studio, vLLM), or pass --model",
          { exitCode: EXIT_USAGE },
        );
      }
    }
    let choice;
    const usable = this.usableOnce();
    try {
      choice = resolveModel(wanted, models, usable);
    } catch (error) {
      const open = uncataloguedModel(wanted, models, listSources(this.options.modelsConfig, this.options.env), lists);
      if (open && this.hasKey(open.provider)) choice = { model: open };
      else if (this.localProbed) throw error;
      else choice = resolveModel(wanted, await this.availableModels(), usable);
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
      throw new OmpError(problem ? `${problem}\n${key.error}` : key.error, { exitCode: EXIT_USAGE });
    }
    const warning = retiredNote(choice.model, lists);
    return {
      model: modelForCredential(choice.model, key.stored?.credential),
      apiKey: key.key,
      keySource: key.source,
      thinking: choice.thinking,
      credentialId: key.stored?.id,
      ...(warning ? { warning } : {}),
    };
  }

  /**
   * Asks every provider with a key which models it serves, when its cached list is over a day old
   * (or always, with `force`); the interactive and rpc modes start this in the background.
   */
  refreshModelLists(force = false): Promise<RefreshResult[]> {
    const sources = listSources(this.options.modelsConfig, this.options.env).filter((source) => this.hasKey(source.provider));
    return refreshModelLists({
      env: this.options.env,
      sources,
      force,
      keyOf: async (provider) => {
        const key = await resolveApiKey({ provider, configKey: this.options.modelsConfig.providers[provider]?.apiKey, store: this.credentialStore(), env: this.options.env });
        return key.ok ? key.key : null;
      },
    });
  }

  /** Today's date and the repository's state, looked up once per process. */
  currentFacts(): Promise<Facts> {
    this.facts ??= (this.options.git ?? gitSummary(this.options.cwd)).then((git) => currentFacts(git));
    return this.facts;
  }

  /** The tools an agent on `model` gets: the selected ones, with the edit tool in the model's format. */
  toolsFor(model: Model): Tool[] {
    return withEditMode(this.tools(), this.editMode(model));
  }

  private editMode(model: Model): EditMode {
    const entry = this.options.modelsConfig.providers[model.provider]?.models?.find((m) => m.id === model.id);
    return editModeFor(model, this.options.settings.edit.mode, entry?.editMode);
  }

  /** The rule files of the user and (trusted) project, split into stream, always-apply and listed rules; read once per process. */
  rulebook(): Promise<Rulebook> {
    // The parser (zod) loads only when there is a rule file to parse: start-up does not load it.
    this.rules ??= (async () => {
      const found = findRuleFiles(this.options.cwd, this.options.env as NodeJS.ProcessEnv);
      const discovered = found.files.length === 0 ? { rules: [], skipped: found.skipped } : (await import("../rules/discover.ts")).parseFoundRules(found);
      return bucketRules(discovered, this.options.settings.ttsr);
    })();
    return this.rules;
  }

  /** Built once per process and edit format: every new session it starts (rpc's new_session) shares it. */
  systemPrompt(mode: EditMode = "replace"): Promise<string> {
    const known = this.prompts.get(mode);
    if (known) return known;
    const prompt = this.currentFacts().then(async (facts) => {
      const { cwd, env } = this.options;
      const files = findPromptFiles(cwd, agentDir(env as NodeJS.ProcessEnv), homeDir());
      const book = await this.rulebook();
      const flag = (text: string | undefined) => (text === undefined ? undefined : promptArgument(text, cwd));
      return buildSystemPrompt({
        cwd,
        tools: withEditMode(this.tools(), mode).map(toolSpec),
        skills: this.skills?.promptSection,
        contextFiles: files.context,
        rules: [...files.rules, ...book.alwaysApply.map((rule) => ({ path: rule.path, content: rule.content }))],
        rulebook: rulesSection(book),
        git: facts.git,
        now: new Date(`${facts.date}T12:00:00Z`),
        replace: flag(this.options.systemPrompt?.replace) ?? files.system?.content,
        append: flag(this.options.systemPrompt?.append) ?? files.appendSystem?.content,
      });
    });
    this.prompts.set(mode, prompt);
    return prompt;
  }

  /**
   * The model and thinking level a session last used, for a resume: that model when it is still
   * known and has a key, else undefined with a warning saying why the current one stays.
   */
  async sessionSelection(path: string, useCliKey = false): Promise<{ selection?: ModelSelection; warning?: string }> {
    const { buildSessionContext, loadSession } = await import("../session/loader.ts");
    const context = buildSessionContext(loadSession(path));
    if (!context.model) return {};
    try {
      const selection = await this.selectModel(context.model, useCliKey);
      if (`${selection.model.provider}/${selection.model.id}` !== context.model) throw new OmpError(`${context.model} is not in the catalog any more`);
      return { selection: { ...selection, thinking: this.options.thinking ?? context.thinkingLevel } };
    } catch (error) {
      return { warning: `the session used ${context.model}, which is not available now (${(error as Error).message}); continuing on the current model` };
    }
  }

  /**
   * The models Ctrl+P / rpc cycle_model go through: those `--models` names, in its order, else
   * every known model whose provider has a key.
   */
  async cycleCandidates(): Promise<Model[]> {
    const models = await this.availableModels();
    const usable = this.usableOnce();
    const scope = this.options.cycleModels;
    if (!scope) return models.filter(usable);
    const scoped = resolveModelPatterns(scope, models, usable).filter(usable);
    return scoped.filter((m, i) => scoped.findIndex((other) => other.provider === m.provider && other.id === m.id) === i);
  }

  /** `--models` limits cycling. */
  get cycleScoped(): boolean {
    return this.options.cycleModels !== undefined;
  }

  /** A fresh agent; `resumePath` continues that session file instead, from `leafId` when given (a branch; null: before its first entry). */
  async createAgent(selection: ModelSelection, resumePath?: string, leafId?: string | null): Promise<Agent> {
    const { settings } = this.options;
    const secrets = this.secrets(selection.apiKey);
    let writer: SessionWriter | undefined;
    let messages = undefined;
    let messageEntryIds: string[] | undefined;
    let thinking = selection.thinking ?? this.options.thinking ?? settings.thinking;
    let resumedModel: string | undefined;
    let resumedThinking: ThinkingLevel | undefined;
    let frame: { frame: RequestFrame; facts: Facts } | undefined;
    let dropThinking = false;
    let mode: SessionMode | undefined;
    let injectedRules: string[] = [];
    const warnings: string[] = [];
    if (resumePath) {
      // Only a resume reads a session file; a new session does not pay for loading the loader.
      const { branchEntries, buildSessionContext, loadSession } = await import("../session/loader.ts");
      const loaded = loadSession(resumePath);
      if (typeof leafId === "string" && !loaded.parents.has(leafId)) throw new OmpError(`no entry ${leafId} in ${displayPath(resumePath)}`);
      const leaf = leafId === undefined ? loaded.leafId : leafId;
      const context = buildSessionContext(loaded, leaf);
      resumedModel = context.model;
      messages = context.messages;
      const branch = branchEntries(loaded, leaf);
      messageEntryIds = entryIdsFor(branch, context.messages.length, context.compaction?.firstKeptEntryId);
      if (!selection.thinking && !this.options.thinking && context.thinkingLevel) thinking = context.thinkingLevel;
      resumedThinking = context.thinkingLevel;
      mode = context.mode;
      injectedRules = branch.flatMap((entry) => (entry.type === "ttsr_injection" ? entry.injectedRules : []));
      const stored = frameOf(branch);
      if (stored.frame) frame = { frame: stored.frame, facts: stored.facts ?? stored.frame.facts };
      else dropThinking = context.messages.length > 0;
      if (!this.options.noSession) {
        const opened = SessionWriter.continue(loaded, { secrets });
        writer = opened.writer;
        if (leafId !== undefined) writer.branch(leafId);
        if (opened.openedBy !== undefined) {
          warnings.push(`session ${loaded.header.id.slice(0, 8)} is open in another omp (pid ${opened.openedBy}); continuing in a fork of it, ${displayPath(writer.path)}, so the two do not write into one file`);
        }
      }
    } else if (!this.options.noSession) {
      writer = SessionWriter.create({ cwd: this.options.cwd, ...this.sessionDirOptions(), secrets });
    }
    // A smol model that cannot be used is said once, when the session starts, not at each title or summary.
    if (rolePatterns(this).smol) {
      const smol = await modelForRole(this, "smol", selection);
      if (smol.fallback) warnings.push(smol.fallback);
    }
    const artifactsDir = writer ? writer.path.replace(/\.jsonl$/, "") : join(agentDir(this.options.env as NodeJS.ProcessEnv), "artifacts", `${process.pid}`);
    const modelId = `${selection.model.provider}/${selection.model.id}`;
    const source = this.options.toolSource;
    const base = this.toolsFor(selection.model);
    const basePrompt = frame ? frame.frame.systemPrompt : this.systemPrompt(this.editMode(selection.model));
    const addDirs = this.options.addDirs ?? [];
    // One policy for the launcher and for omp's own tools (core/sandbox/path-policy.ts).
    const home = homeDir();
    const sandbox = buildPolicy({ settings: settings.sandbox, cwd: this.options.cwd, addDirs, home, env: this.options.env as NodeJS.ProcessEnv });
    const userDenyRead = settings.sandbox.denyRead.map((path) => settingPath(path, this.options.cwd, home));
    const paths = new PathPolicy(sandbox, this.options.cwd, addDirs, { userDenyRead, writable: [artifactsDir] });
    const agent = new Agent({
      cwd: this.options.cwd,
      model: selection.model,
      apiKey: selection.apiKey,
      thinking: selection.model.reasoning ? thinking : "off",
      tools: source ? [...base, ...source.tools()] : base,
      gate: this.gate(settings, artifactsDir, paths),
      // The first request also waits for the run-time tools it must carry (bounded by their source).
      systemPrompt: source ? Promise.all([basePrompt, source.ready()]).then(([prompt]) => prompt) : basePrompt,
      facts: this.currentFacts(),
      frame,
      dropThinking,
      writer,
      messages,
      messageEntryIds,
      artifactsDir,
      compaction: settings.compaction,
      settings,
      maxRetries: settings.retry.maxRetries,
      bashTimeoutSeconds: settings.bash.timeoutSeconds,
      // The settings' own mapping, read at each command, so a change in /settings holds for the next one.
      shell: settings.bash,
      web: settings.web,
      ...(settings.sandbox.mode === "off" ? {} : { sandbox }),
      retry: { baseDelayMs: settings.retry.baseDelayMs, idleTimeoutMs: settings.retry.idleTimeoutSeconds * 1000 },
      maxTurns: this.options.maxTurns,
      announceModel: resumedModel !== modelId,
      announceThinking: (selection.model.reasoning ? thinking : "off") !== resumedThinking,
      warnings,
      secrets,
      rotateCredential: (failure) => this.rotate(selection, failure),
      extensions: this.options.extensions,
      selectModel: (pattern) => this.selectModel(pattern, false),
      roleModel: (role) => configuredRoleModel(this, role),
      onResponseHeaders: (model, headers) => {
        if (selection.credentialId !== undefined) this.observedLimits.note(model.provider, selection.credentialId, headers);
      },
      ...(this.options.recordUsage ? { recordUsage: this.options.recordUsage } : {}),
      ...(this.options.editor ? { editor: this.options.editor } : {}),
      ...(this.options.questioner ? { question: this.options.questioner } : {}),
      ...(mode ? { mode } : {}),
      // Servers the project configured run in the commands' sandbox (core/sandbox/servers.ts).
      lsp: new LspSession(this.options.cwd, settings.lsp, this.options.env as NodeJS.ProcessEnv, settings.sandbox.mode === "off" ? undefined : { policy: sandbox, secrets: () => secrets }),
      checkpoints: settings.checkpoints,
      ...(wantsMemoryBlock(settings) ? { recallMemories: (prompt: string) => import("../memory/session-block.ts").then((module) => module.sessionMemoryBlock(settings, this.options.cwd, this.options.env as NodeJS.ProcessEnv, prompt)) } : {}),
      streamRules: streamRulesFor(await this.rulebook(), settings.ttsr, injectedRules),
    });
    source?.subscribe(() => {
      // The session host's plan-mode tool stays while the host offers it.
      agent.setTools([...base, ...source.tools(), ...agent.tools.filter((tool) => tool === planModeTool)]);
    });
    return agent;
  }

  /**
   * After a usage limit that says when it resets: blocks the credential in use until then (for
   * every process sharing the vault or broker) and hands over the provider's next one. A session
   * sticks to its credential otherwise.
   */
  /** One agent's approvals: the approval mode, the project's scope, tools.approval, and the hosts it may send to. */
  private gate(settings: Settings, artifactsDir: string, paths: PathPolicy): ApprovalGate {
    const gate = new ApprovalGate(
      settings.approvalMode,
      this.options.approver,
      new PathScope(this.options.cwd, [...(this.options.addDirs ?? []), artifactsDir], paths),
      (tool) => (Object.hasOwn(settings.tools.approval, tool) ? settings.tools.approval[tool] : undefined),
    );
    gate.egress = new EgressHosts(this.options.cwd, () => [...settings.web.allowHosts, ...(this.options.allowHosts ?? [])], this.options.env as NodeJS.ProcessEnv);
    return gate;
  }

  private async rotate(selection: ModelSelection, failure: ProviderFailure): Promise<{ apiKey: string; model: Model } | { error: string } | { hint: string } | undefined> {
    const rotated = await this.rotateStored(selection, failure);
    if (rotated || failure.kind !== "auth") return rotated;
    return { hint: refusedKeyHint(selection.model.provider, selection.keySource) };
  }

  private async rotateStored(selection: ModelSelection, failure: ProviderFailure): Promise<{ apiKey: string; model: Model } | { error: string } | undefined> {
    const until = failure.kind === "usage-limit" ? failure.resetsAt : undefined;
    const source = this.credentialStore();
    if (!source || selection.credentialId === undefined) return undefined;
    const provider = selection.model.provider;
    if (until === undefined) return failure.kind === "auth" && failure.status === 401 ? this.renew(selection, source) : undefined;
    await source.block(selection.credentialId, provider, until);
    this.blocked.set(selection.credentialId, until);
    const next = await source.resolve(provider, new Set(this.blocked.keys()));
    if (!next) {
      const earliest = new Date(Math.min(...this.blocked.values())).toISOString();
      return { error: `every stored ${provider} credential has reached its usage limit; the earliest resets at ${earliest}` };
    }
    return this.use(selection, next);
  }

  /**
   * The provider refused the stored credential's token: a long session's login was refreshed since
   * it started (by the broker, whose stream brought the new token, or by another process sharing
   * the vault), or is due now. The request goes again once, with the credential's current token.
   */
  private async renew(selection: ModelSelection, source: CredentialSource): Promise<{ apiKey: string; model: Model } | undefined> {
    const current = await source.resolve(selection.model.provider, new Set(this.blocked.keys()));
    if (!current || current.key === selection.apiKey) return undefined;
    return this.use(selection, current);
  }

  private use(selection: ModelSelection, next: ResolvedCredential): { apiKey: string; model: Model } {
    selection.credentialId = next.id;
    selection.apiKey = next.key;
    selection.model = modelForCredential(selection.model, next.credential);
    return { apiKey: next.key, model: selection.model };
  }

  /**
   * Values that must never reach a file: the key in use and every provider key in the
   * environment (a command the model runs sees them all).
   */
  secrets(apiKey: string | undefined): string[] {
    const fromEnv = [...PROVIDERS.flatMap((provider) => [...provider.keyEnv, ...(provider.secretEnv ?? [])].map((name) => this.options.env[name])), ...secretValuesIn(this.options.env)];
    // Every configured and stored secret, not only the one in use: a tool's output or an echoed error may show any of them.
    const configured = Object.values(this.options.modelsConfig.providers).map((provider) => {
      const key = provider.apiKey?.trim();
      if (key === undefined || key.startsWith("!")) return undefined;
      return /^[A-Z_][A-Z0-9_]*$/.test(key) ? this.options.env[key] : key;
    });
    const stored = this.credentialStore()?.secrets() ?? [];
    return [
      ...new Set([apiKey, this.options.cliKey, ...fromEnv, ...configured, ...stored, this.options.settings.collab.relayToken].filter((value): value is string => typeof value === "string" && value !== "")),
    ];
  }
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
