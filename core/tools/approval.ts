import { OmpError } from "../errors/omp-error.ts";
import { commandPrefix, prefixCovers, type Refusal } from "../sandbox/denial.ts";
import { bashAllowed } from "../permissions/rules.ts";
import type { PathScope } from "./path-scope.ts";
import type { PathVerdict } from "../sandbox/path-policy.ts";
import type { SessionMode } from "../session/modes.ts";
import type { Tool, ToolEffect } from "./types.ts";
import { type ChangePreview, boundedPreview } from "./change-preview.ts";
import type { ToolPolicy } from "../config/settings-schema.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";
import { type EgressHosts, type EgressRequest, egressRefusal } from "../permissions/egress.ts";

export const APPROVAL_MODES = ["always-ask", "write", "yolo"] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** Parses `--approval-mode`; throws an OmpError (exit code 2) listing the valid modes. */
export function parseApprovalMode(value: string): ApprovalMode {
  if ((APPROVAL_MODES as readonly string[]).includes(value)) return value as ApprovalMode;
  throw new OmpError(`Unknown approval mode ${JSON.stringify(value)}. Valid modes: ${APPROVAL_MODES.join(", ")}.`, { exitCode: EXIT_USAGE });
}

/**
 * `--approval-mode`: an approval mode, or a session mode that starts the session in it (`plan`,
 * `auto-accept`). Throws an OmpError (exit code 2) listing both.
 */
export function parseApprovalFlag(value: string): { approvalMode?: ApprovalMode; mode?: SessionMode } {
  if (value === "plan" || value === "auto-accept") return { mode: value };
  if ((APPROVAL_MODES as readonly string[]).includes(value)) return { approvalMode: value as ApprovalMode };
  throw new OmpError(`Unknown approval mode ${JSON.stringify(value)}. Valid modes: ${APPROVAL_MODES.join(", ")}, plan, auto-accept.`, { exitCode: EXIT_USAGE });
}

/** always-ask: every call; write: calls that change files, run commands or reach the network; yolo: none. */
export function needsApproval(tool: Pick<Tool, "effect">, mode: ApprovalMode): boolean {
  switch (mode) {
    case "always-ask":
      return true;
    case "write":
      return tool.effect !== "read";
    case "yolo":
      return false;
  }
}

export interface ApprovalRequest {
  toolName: string;
  /** `sandbox`: the command failed in the sandbox; allowing runs it again outside. `trust`: the project's code-running files changed since it was trusted. `egress`: a request to a host the user has not named. */
  kind?: "call" | "sandbox" | "trust" | "egress";
  /** What "don't ask again" covers, in words (`bash commands starting with "npm test"`). */
  rememberAs?: string;
  /** How long "don't ask again" holds: this session (the default), or this project from now on (egress hosts). */
  rememberFor?: "session" | "project";
  effect: ToolEffect;
  /** The validated input the tool will run with. */
  input: unknown;
  /** One line for the prompt: the command for bash, the path for file tools. */
  summary: string;
  /** The paths of the call outside the project and its allowed dirs, when that is why it asks. */
  outside?: string[];
  /** The model's id for the call, so a front end can show the question on the call it is about. */
  toolCallId?: string;
  /** For a call that writes files: exactly what it will write, as a diff per file. */
  changes?: ChangePreview[];
}

export interface ApprovalDecision {
  allow: boolean;
  /** Passed on to the model when the call is denied, so it can adapt. */
  reason?: string;
  /** Apply this decision to every later call of the same tool in this session. */
  remember?: boolean;
  /** Allowed as the user edited it: the whole new text of the one file the call changes. */
  edited?: string;
}

/** Asks the user; the interactive UI provides one, print mode has none. */
export type Approver = (request: ApprovalRequest) => Promise<ApprovalDecision>;

/** `userDenied`: the user said no without a word, so the run stops for them; `changes`: what was turned down. */
export type ApprovalOutcome =
  | { allow: true; edited?: EditedChange }
  | { allow: false; message: string; userDenied?: true; changes?: ChangePreview[] };

/** A change the user edited before accepting it: what the file gets instead of the model's version. */
export interface EditedChange {
  path: string;
  shown: string;
  proposed: string;
  content: string;
}

const SUMMARY_CHARS = 200;

/**
 * Calls that ask whatever the approval mode (yolo too): ssh runs commands on another machine,
 * past this one's sandbox; github's pr_create and pr_push publish under the user's name. `tools.approval.<tool>:
 * allow`, a permission rule or a hook settles them.
 */
function asksInEveryMode(toolName: string, input: unknown): boolean {
  if (toolName === "ssh") return true;
  return toolName === "github" && input !== null && typeof input === "object" && ["pr_create", "pr_push"].includes(String((input as { op?: unknown }).op));
}

export function summarizeInput(input: unknown): string {
  if (input !== null && typeof input === "object") {
    const record = input as Record<string, unknown>;
    // A command is shown whole: whatever is cut off is what would run unseen. A remote one says where.
    if (typeof record.command === "string" && typeof record.host === "string") {
      return `on ${showCommand(record.host)}${typeof record.cwd === "string" ? ` in ${showCommand(record.cwd)}` : ""}: ${showCommand(record.command)}`;
    }
    if (typeof record.command === "string") return showCommand(record.command);
    for (const key of ["path", "pattern"]) {
      if (typeof record[key] === "string") return cut(record[key] as string);
    }
  }
  return cut(JSON.stringify(input) ?? "");
}

/**
 * A command as an approval shows it: every character there, runs of blanks collapsed to one so
 * padding cannot push the rest out of view, line breaks as ⏎, other control characters as ^X.
 */
export function showCommand(command: string): string {
  return command
    .replace(/[ \t]+/g, " ")
    .replace(/ *\r?\n */g, " ⏎ ")
    .replace(/[\x00-\x1f\x7f]/g, (c) => (c === "\x7f" ? "^?" : `^${String.fromCharCode(c.charCodeAt(0) + 64)}`))
    .replace(/[\u0080-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g, (c) => `<U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")}>`);
}

/** The "don't ask again" key and its words: bash by command prefix, never all of bash. */
function rememberKey(tool: Pick<Tool, "name">, input: unknown, outside: boolean): { key: string; words: string; prefix?: string } {
  const command = input !== null && typeof input === "object" ? (input as Record<string, unknown>).command : undefined;
  if (tool.name === "bash" && typeof command === "string") {
    const prefix = commandPrefix(command);
    return { key: `bash ${prefix}${outside ? " outside the project" : ""}`, words: `bash commands starting with "${prefix}"${outside ? " outside the project" : ""}`, prefix };
  }
  const host = input !== null && typeof input === "object" ? (input as Record<string, unknown>).host : undefined;
  if (tool.name === "ssh" && typeof command === "string" && typeof host === "string") {
    const prefix = commandPrefix(command);
    return { key: `ssh ${host} ${prefix}`, words: `commands starting with "${prefix}" on ${host}`, prefix };
  }
  const key = outside ? `${tool.name} outside the project` : tool.name;
  return { key, words: key };
}

function cut(text: string): string {
  const oneLine = text.replace(/\s*\n\s*/g, " ⏎ ");
  return oneLine.length > SUMMARY_CHARS ? `${oneLine.slice(0, SUMMARY_CHARS)}…` : oneLine;
}

/** A bash command every part of which the read-only classifier knows to change nothing (plan mode runs it). */
export function provablyReadOnly(tool: Pick<Tool, "name">, input: unknown): boolean {
  const command = input !== null && typeof input === "object" ? (input as Record<string, unknown>).command : undefined;
  return tool.name === "bash" && typeof command === "string" && bashAllowed([], command, { readOnly: true });
}

/** What a denied call tells the model when nobody could have approved it. */
function noApproverMessage(tool: Pick<Tool, "name" | "effect">, mode: ApprovalMode): string {
  const fix =
    tool.effect !== "read" && tool.effect !== "write" || mode === "write"
      ? "--approval-mode yolo"
      : "--approval-mode write (file changes allowed, commands still need approval) or --approval-mode yolo";
  return `${tool.name} was not run: it needs approval under --approval-mode ${mode}, and there is nobody to ask in this non-interactive run. Tell the user to rerun with ${fix} to allow it.`;
}

/** What a call outside the project tells the model when nobody could have approved it. */
function outsideMessage(tool: Pick<Tool, "name">, mode: ApprovalMode, outside: string[], scope: PathScope): string {
  return `${tool.name} was not run: ${outside.join(", ")} is outside the project (${scope.roots[0]}), which needs approval under --approval-mode ${mode}, and there is nobody to ask in this non-interactive run. Tell the user to rerun with --add-dir <dir> to allow that directory, or --approval-mode yolo.`;
}

type NeedsApproval = Extract<PathVerdict, { kind: "needs-approval" }>;

/**
 * The per-session approval policy: decides whether a call may run, asks the approver when the
 * mode requires it, and remembers "always"/"never" answers per tool name. Outside yolo, a call
 * on a path outside the project's scope asks too, and its answer is remembered apart from the
 * same tool's inside the project.
 */
export class ApprovalGate {
  private readonly remembered = new Map<string, boolean>();
  /** Guarded paths the user allowed a call to write (`<call id>\n<path>`), each taken by that call's write. */
  private readonly granted = new Set<string>();
  /** Told each time the user is about to be asked (Notification hooks). */
  onAsk: ((request: ApprovalRequest) => void) | undefined;
  /** Plan mode: calls that write or execute are refused with this message, whatever was remembered (bash commands proven read-only excepted). */
  readOnly: string | undefined;
  /** Auto-accept mode: file changes inside the project run without asking; commands still ask. */
  acceptEdits = false;
  /** Asked first whenever a call needs approval, with or without a user (PermissionRequest hooks); undefined leaves it to the user. */
  beforeAsk: ((request: ApprovalRequest) => Promise<ApprovalDecision | undefined>) | undefined;
  /** The hosts this session may send to without asking; absent (no session): every host asks. */
  egress: EgressHosts | undefined;
  /** Hosts of network calls the user allowed (their URL shown): the egress question is not asked again for them. */
  private readonly hostsAllowedByCall = new Set<string>();
  /** A question a tool asked while it ran (a host, running outside the sandbox) was turned down without a word. */
  private deniedWithoutWord = false;

  constructor(
    /** Changed by a session's mode switch (plan, auto-accept), for every later call. */
    public mode: ApprovalMode,
    private readonly approver?: Approver,
    private readonly scope?: PathScope,
    /** `tools.approval.<tool>`, asked at each call so that a change in /settings holds for the next one. */
    private readonly policy?: (toolName: string) => ToolPolicy | undefined,
  ) {}

  /**
   * This gate for a subagent working in `dir` (an isolated task's worktree): writes there count as
   * the project's. The mode, the answers remembered and the handlers stay this gate's, shared.
   */
  forWorkspace(dir: string): ApprovalGate {
    return Object.create(this, { scope: { value: this.scope?.withWorkspace(dir) } }) as ApprovalGate;
  }

  /** The sandbox policy omp's tools follow, when the session has one. */
  get paths() {
    return this.scope?.policy;
  }

  private policyOf(toolName: string): "allow" | "ask" | "deny" | undefined {
    const policy = this.policy?.(toolName);
    return policy === "prompt" ? "ask" : policy;
  }

  /** Why a call `tools.approval.<tool>: deny` forbids is refused; checked before any hook or rule could allow it. */
  refusal(toolName: string): string | undefined {
    if (this.policyOf(toolName) !== "deny") return undefined;
    return `${toolName} was not run: the setting tools.approval.${toolName} is deny, so it never runs. Do not try to get around it with another tool; tell the user if the task needs it.`;
  }

  /** `tools.approval.<tool>: ask`: every call asks, even one a hook or a permission rule allowed. */
  alwaysAsks(toolName: string): boolean {
    return this.policyOf(toolName) === "ask";
  }

  /**
   * Asks about `summary` whatever the mode (a tool's own safety question, such as a fetch of a
   * private address), or with `onlyIfModeAsks` as the mode treats `effect` (read fetching a URL is
   * a network call); answers the user asks to remember hold for `key`. `url`: the address the
   * summary shows; once the user allowed it, its host is not asked about a second time.
   */
  async ask(toolName: string, effect: ToolEffect, key: string, summary: string, onlyIfModeAsks = false, url?: string): Promise<ApprovalOutcome> {
    if (onlyIfModeAsks && !needsApproval({ effect }, this.mode)) return { allow: true };
    const known = this.remembered.get(key);
    if (known === true) return { allow: true };
    if (known === false) return { allow: false, message: `The user has denied ${key} for this session.` };
    if (!this.approver) return { allow: false, message: `${summary}: this needs the user's approval, and there is nobody to ask in this non-interactive run.` };
    const request = { toolName, effect, input: { summary }, summary };
    this.onAsk?.(request);
    const decision = await this.approver(request);
    if (decision.remember) this.remembered.set(key, decision.allow);
    if (decision.allow) {
      const host = effect === "network" ? urlHost({ url }) : undefined;
      if (host) this.hostsAllowedByCall.add(host);
      return { allow: true };
    }
    if (!decision.reason) this.deniedWithoutWord = true;
    return { allow: false, message: `The user denied: ${summary}.${decision.reason ? ` Reason: ${decision.reason}` : ""}` };
  }

  /** Why the sandbox's deny-list refuses a path this call names; holds in every mode, whatever a hook or rule says. */
  pathRefusal(toolName: string, input: unknown): string | undefined {
    const denied = this.scope?.verdicts(toolName, input).find(({ verdict }) => verdict.kind === "denied");
    return denied ? `${toolName} was not run: ${denied.verdict.message}` : undefined;
  }

  /**
   * A write the sandbox policy guards (outside the writable roots, or a protected workspace path)
   * asks in every approval mode, yolo included; without anyone to ask it is refused, saying how
   * to allow it. An allowed path is granted to the call's write, which checks again at use.
   */
  private async askGuarded(tool: Pick<Tool, "name" | "effect">, input: unknown, guarded: NeedsApproval[], toolCallId?: string): Promise<ApprovalOutcome> {
    const paths = [...new Set(guarded.map((verdict) => verdict.real))];
    const key = `${tool.name} of ${paths.join(", ")}`;
    const known = this.remembered.get(key);
    if (known === false) return { allow: false, message: `The user has denied ${key} for this session.` };
    if (known !== true) {
      const summary = `${summarizeInput(input)} (${guarded.map((verdict) => verdict.message).join("; ")})`;
      const settled = await this.beforeAsk?.({ toolName: tool.name, effect: tool.effect, input, summary, outside: paths });
      if (settled && !settled.allow) return { allow: false, message: `${tool.name} was not run: a PermissionRequest hook denied it.${settled.reason ? ` Reason: ${settled.reason}` : ""}` };
      const decision = settled ?? (this.approver ? await this.askUser({ toolName: tool.name, effect: tool.effect, input, summary, rememberAs: key, outside: paths, ...(toolCallId ? { toolCallId } : {}) }) : undefined);
      if (!decision) return { allow: false, message: `${tool.name} was not run: ${guarded[0]!.message}, and there is nobody to ask in this non-interactive run. ${guarded[0]!.howToAllow}` };
      if (decision.remember) this.remembered.set(key, decision.allow);
      if (!decision.allow) {
        // Without a word from the user the run stops for them, as for any other approval.
        return { allow: false, message: `The user denied this ${tool.name} call (${paths.join(", ")}).${decision.reason ? ` Reason: ${decision.reason}` : ""}`, ...(decision.reason ? {} : { userDenied: true as const }) };
      }
    }
    for (const path of paths) this.granted.add(`${toolCallId ?? ""}\n${path}`);
    return { allow: true };
  }

  /**
   * At the moment of writing (file-writes.ts): a guarded path the call's approval granted goes
   * ahead once; any other (a file a rewrite found, a call a hook allowed) asks now.
   */
  async authorizeWrite(verdict: NeedsApproval, toolCallId?: string): Promise<ApprovalOutcome> {
    const grant = `${toolCallId ?? ""}\n${verdict.real}`;
    if (this.granted.delete(grant)) return { allow: true };
    const outcome = await this.askGuarded({ name: "write", effect: "write" }, { path: verdict.real }, [verdict], toolCallId);
    this.granted.delete(grant);
    // Asked while the call ran: a plain no stops the run once the call is over (takeDenial).
    if (!outcome.allow && outcome.userDenied) this.deniedWithoutWord = true;
    return outcome;
  }

  private async askUser(request: ApprovalRequest): Promise<ApprovalDecision> {
    this.onAsk?.(request);
    return this.approver!(request);
  }

  /**
   * A request to a host the user may not have named (web_fetch, web_search, read of a URL, a
   * project's remote MCP server): asks once per host whatever the approval mode; "always" is kept
   * for this project. Without an approver it is refused, saying how to allow it.
   */
  async askEgress(request: EgressRequest): Promise<ApprovalOutcome> {
    if (this.egress?.namedBy(request)) return { allow: true };
    if (request.configured && !request.privateAddress) return { allow: true };
    if (!request.privateAddress && this.hostsAllowedByCall.has(request.host.toLowerCase())) return { allow: true };
    const key = `egress ${request.host.toLowerCase()}${request.privateAddress ? `:${request.port}` : ""}`;
    const known = this.remembered.get(key);
    if (known === true) return { allow: true };
    if (known === false) return { allow: false, message: egressRefusal(request, "The user has refused this host for this session.") };
    const where = request.privateAddress ? `, a ${request.privateAddress.kind} address (${request.privateAddress.address})` : "";
    const summary = `${request.toolName} wants to send ${request.what} to ${request.host}${where}, a host you have not named`;
    const asked: ApprovalRequest = {
      toolName: request.toolName,
      kind: "egress",
      effect: "network",
      input: { host: request.host, port: request.port, what: request.what, ...(request.privateAddress ? { address: request.privateAddress.address } : {}) },
      summary,
      rememberAs: `requests to ${request.host}`,
      rememberFor: "project",
    };
    const settled = await this.beforeAsk?.(asked);
    if (settled) return settled.allow ? { allow: true } : { allow: false, message: egressRefusal(request, `A PermissionRequest hook denied it.${settled.reason ? ` Reason: ${settled.reason}` : ""}`) };
    if (!this.approver) return { allow: false, message: egressRefusal(request, "omp asks before sending anything to a host the user has not named, and there is nobody to ask in this non-interactive run.") };
    this.onAsk?.(asked);
    const decision = await this.approver(asked);
    // Once per host: an allow holds for the session, "always" for the project too.
    if (decision.allow || decision.remember) this.remembered.set(key, decision.allow);
    if (decision.allow && decision.remember) this.egress?.remember(request.host);
    if (decision.allow) return { allow: true };
    if (!decision.reason) this.deniedWithoutWord = true;
    return { allow: false, message: egressRefusal(request, `The user denied it.${decision.reason ? ` Reason: ${decision.reason}` : ""}`) };
  }

  /** Whether a question asked while the last calls ran was turned down without a word (and forgets it): the run then stops for the user. */
  takeDenial(): boolean {
    const denied = this.deniedWithoutWord;
    this.deniedWithoutWord = false;
    return denied;
  }

  /** Why a read-only session (plan mode) refuses this call; it holds whatever a hook or permission rule says. */
  readOnlyRefusal(tool: Pick<Tool, "name" | "effect">, input: unknown): string | undefined {
    if (this.readOnly === undefined || tool.effect === "read" || provablyReadOnly(tool, input)) return undefined;
    return `${tool.name} was not run: ${this.readOnly}`;
  }

  /** `hookAsk`: a hook wants the user's word on this call whatever the mode says, for this reason. */
  async check(
    tool: Pick<Tool, "name" | "effect">,
    input: unknown,
    hookAsk?: { reason?: string },
    toolCallId?: string,
    /** Works out the files the call would write; asked only when the user is asked. */
    preview?: () => Promise<ChangePreview[] | undefined>,
  ): Promise<ApprovalOutcome> {
    const readOnly = this.readOnlyRefusal(tool, input);
    if (readOnly !== undefined) return { allow: false, message: readOnly };
    const policy = this.policyOf(tool.name);
    if (policy === "deny") return { allow: false, message: this.refusal(tool.name)! };
    const guarded = (this.scope?.verdicts(tool.name, input) ?? []).flatMap(({ verdict }) => (verdict.kind === "needs-approval" ? [verdict] : []));
    if (guarded.length > 0) return this.askGuarded(tool, input, guarded, toolCallId);
    const outside = this.mode === "yolo" || !this.scope ? [] : this.scope.outside(tool.name, input);
    // `allow` settles what the mode would ask; a call outside the project still asks, as a hook's ask does.
    const settledByMode = policy === "allow" || (policy === undefined && !needsApproval(tool, this.mode) && !asksInEveryMode(tool.name, input));
    if (!hookAsk && outside.length === 0 && settledByMode) return { allow: true };
    if (!hookAsk && outside.length === 0 && policy !== "ask" && this.acceptEdits && tool.effect === "write") return { allow: true };
    const remember = rememberKey(tool, input, outside.length > 0);
    const { key } = remember;
    const known = this.remembered.get(key);
    const covered = remember.prefix === undefined || prefixCovers(remember.prefix, String((input as { command: string }).command));
    // `ask` asks every time: an earlier "always" does not hold it off.
    if (known === true && covered && policy !== "ask") return { allow: true };
    if (known === false) return { allow: false, message: `The user has denied all ${remember.words} for this session.` };
    const because = hookAsk?.reason ? ` (a hook asks: ${hookAsk.reason})` : policy === "ask" ? ` (tools.approval.${tool.name} is ask)` : "";
    const settled = await this.beforeAsk?.({ toolName: tool.name, effect: tool.effect, input, summary: summarizeInput(input), ...(outside.length > 0 ? { outside } : {}) });
    if (settled) return settled.allow ? { allow: true } : { allow: false, message: `${tool.name} was not run: a PermissionRequest hook denied it.${settled.reason ? ` Reason: ${settled.reason}` : ""}` };
    if (!this.approver) {
      if (policy === "ask" && outside.length === 0) {
        return { allow: false, message: `${tool.name} was not run: the setting tools.approval.${tool.name} is ask, and there is nobody to ask in this non-interactive run. Tell the user to run it interactively, or to set tools.approval.${tool.name} to allow.` };
      }
      if (asksInEveryMode(tool.name, input) && !hookAsk && outside.length === 0) {
        return { allow: false, message: `${tool.name} was not run: it asks the user in every approval mode, and there is nobody to ask in this non-interactive run. Tell the user to run it interactively, or to set tools.approval.${tool.name} to allow (or allow it with a permission rule).` };
      }
      if (hookAsk && outside.length === 0 && !needsApproval(tool, this.mode)) {
        return { allow: false, message: `${tool.name} was not run: a hook wants the user to approve it${because}, and there is nobody to ask in this non-interactive run.` };
      }
      return { allow: false, message: outside.length > 0 ? outsideMessage(tool, this.mode, outside, this.scope!) : noApproverMessage(tool, this.mode) };
    }
    const summary = summarizeInput(input) + (outside.length > 0 ? " (outside the project)" : "") + because;
    const changes = boundedPreview(await preview?.().catch(() => undefined));
    const request: ApprovalRequest = {
      toolName: tool.name,
      effect: tool.effect,
      input,
      summary,
      rememberAs: remember.words,
      ...(outside.length > 0 ? { outside } : {}),
      ...(toolCallId ? { toolCallId } : {}),
      ...(changes && changes.length > 0 ? { changes } : {}),
    };
    this.onAsk?.(request);
    const decision = await this.approver(request);
    if (decision.remember) this.remembered.set(key, decision.allow);
    const only = request.changes?.length === 1 ? request.changes[0]! : undefined;
    if (decision.allow && decision.edited !== undefined && only?.newText != null) {
      return { allow: true, edited: { path: only.path, shown: only.shown, proposed: only.newText, content: decision.edited } };
    }
    if (decision.allow) {
      // The user saw the URL and allowed the call: its host is not asked about a second time.
      const host = tool.effect === "network" ? urlHost(input) : undefined;
      if (host) this.hostsAllowedByCall.add(host);
      return { allow: true };
    }
    const reason = decision.reason ? ` Reason: ${decision.reason}` : "";
    // A reason is the user speaking: the model reads it and goes on. Without one the user wants the wheel back.
    return {
      allow: false,
      message: decision.reason ? `The user denied this ${tool.name} call.${reason}` : `The user denied this ${tool.name} call; it was not run. Wait for the user's instructions.`,
      ...(decision.reason ? {} : { userDenied: true as const }),
      ...(request.changes ? { changes: request.changes } : {}),
    };
  }

  /**
   * A command failed in the sandbox: asks whether to run it again outside (once, always, or never).
   * "Always" is for the host or socket a network refusal names, else for the command's prefix.
   * Without an approver (print mode) the answer is no, with the reason.
   */
  async escalate(command: string, refusal: Refusal, explanation: string): Promise<ApprovalOutcome> {
    const prefix = commandPrefix(command);
    const byTarget = refusal.kind !== "file" && refusal.target !== undefined;
    const key = byTarget ? `outside the sandbox: ${refusal.kind} ${refusal.target}` : `outside the sandbox: ${prefix}`;
    const words = byTarget ? `commands reaching ${refusal.target} outside the sandbox` : `commands starting with "${prefix}" outside the sandbox`;
    const known = this.remembered.get(key);
    if (known === true && (byTarget || prefixCovers(prefix, command))) return { allow: true };
    if (known === false) return { allow: false, message: `The user has refused to run ${words} for this session.` };
    if (!this.approver) return { allow: false, message: "No one can approve running it outside the sandbox in this non-interactive run." };
    const request: ApprovalRequest = {
      toolName: "bash",
      kind: "sandbox",
      effect: "exec",
      input: { command },
      summary: `${showCommand(command)} (blocked by the sandbox: ${refusal.line} — ${explanation} Run it again outside the sandbox?)`,
      rememberAs: words,
    };
    this.onAsk?.(request);
    const decision = await this.approver(request);
    if (decision.remember) this.remembered.set(key, decision.allow);
    if (decision.allow) return { allow: true };
    if (!decision.reason) this.deniedWithoutWord = true;
    return { allow: false, message: `The user refused to run it outside the sandbox.${decision.reason ? ` Reason: ${decision.reason}` : ""}` };
  }
}

/** The host of the URL a network call names (web_fetch's url, read's path when it is a URL), lower-cased. */
function urlHost(input: unknown): string | undefined {
  const record = input !== null && typeof input === "object" ? (input as Record<string, unknown>) : {};
  const given = typeof record.url === "string" ? record.url : typeof record.path === "string" ? record.path : undefined;
  if (!given || !/^https?:\/\//i.test(given)) return undefined;
  try {
    return new URL(given).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    return undefined;
  }
}
