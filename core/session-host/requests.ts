import type { ApprovalDecision, ApprovalRequest, Approver } from "../tools/approval.ts";
import { presentTool } from "../tools/presentation.ts";
import type { QuestionAnswer, QuestionRequest, Questioner } from "../tools/types.ts";
import type { HostOwnEvent } from "./protocol.ts";

/**
 * Requests the host puts on its event stream and some front end answers by id (approvals,
 * questions). Made before the runtime, which needs their askers; the host connects `emit`. An
 * answer may come from anywhere (an overlay, an rpc line, an ACP client) or never: a timeout and
 * closing the session settle every open request with the fallback, so no run waits forever.
 */
export class PendingRequests<Answer> {
  private serial = 0;
  private readonly waiting = new Map<string, { resolve: (answer: Answer) => void; timer?: ReturnType<typeof setTimeout> }>();
  emit: ((event: HostOwnEvent) => void) | undefined;

  constructor(
    private readonly prefix: string,
    /** What an unanswered request settles with, and why. */
    private readonly fallback: (reason: string) => Answer,
  ) {}

  /** Emits the request `make(id)` describes; resolves with its answer, or the fallback after `timeoutMs` (0: none). */
  protected open(make: (id: string) => HostOwnEvent, timeoutMs = 0): Promise<Answer> {
    const id = `${this.prefix}_${++this.serial}`;
    return new Promise<Answer>((resolve) => {
      const timer = timeoutMs > 0 ? setTimeout(() => this.answer(id, this.fallback(`nobody answered within ${timeoutMs / 1000} s`)), timeoutMs) : undefined;
      this.waiting.set(id, { resolve, ...(timer ? { timer } : {}) });
      this.emit?.(make(id));
    });
  }

  has(id: string): boolean {
    return this.waiting.has(id);
  }

  /** False when no request has that id (answered already, timed out, or never asked). */
  answer(id: string, answer: Answer): boolean {
    const open = this.waiting.get(id);
    if (!open) return false;
    this.waiting.delete(id);
    clearTimeout(open.timer);
    open.resolve(answer);
    return true;
  }

  /** Nobody is left to answer (the front end went away, the turn was cancelled): every open request gets the fallback. */
  cancelAll(reason: string): void {
    for (const id of [...this.waiting.keys()]) this.answer(id, this.fallback(reason));
  }
}

/** Approvals as requests on the host's stream: the runtime's approver, answered with answer_approval. */
export class ApprovalRequests extends PendingRequests<ApprovalDecision> {
  cwd = "";

  constructor() {
    super("approval", (reason) => ({ allow: false, reason }));
  }

  readonly ask: Approver = (request: ApprovalRequest) =>
    this.open((id) => ({
      type: "approval_request",
      id,
      toolName: request.toolName,
      effect: request.effect,
      input: request.input,
      summary: request.summary,
      ...(request.outside ? { outside: request.outside } : {}),
      ...(request.toolCallId ? { toolCallId: request.toolCallId } : {}),
      ...(request.kind ? { kind: request.kind } : {}),
      ...(request.rememberAs ? { rememberAs: request.rememberAs } : {}),
      ...(request.rememberFor ? { rememberFor: request.rememberFor } : {}),
      ...(request.changes ? { changes: request.changes } : {}),
      // A host question is about the request, not the call's input: an editor shows the host and what goes there.
      presentation: request.kind === "egress" ? { title: request.summary, kind: "fetch", locations: [] } : presentTool(request.toolName, request.input, this.cwd),
    }));
}

/**
 * The ask tool's questions and exit_plan_mode's plans as question_request events, answered with
 * answer_question. `timeoutMs` is the questions.timeoutSeconds setting (the host sets it).
 */
export class QuestionRequests extends PendingRequests<QuestionAnswer> {
  timeoutMs = 0;

  constructor() {
    super("question", (reason) => ({ unanswered: reason }));
  }

  readonly ask: Questioner = (request: QuestionRequest) =>
    this.open(
      (id) => ({
        type: "question_request",
        id,
        kind: request.kind,
        questions: request.questions,
        ...(request.plan !== undefined ? { plan: request.plan } : {}),
        ...(request.toolCallId ? { toolCallId: request.toolCallId } : {}),
        ...(this.timeoutMs > 0 ? { timeoutMs: this.timeoutMs } : {}),
      }),
      this.timeoutMs,
    );
}
