import type { SessionView } from "../../../core/session-host/host.ts";
import { displayPath } from "../../../core/paths.ts";
import { SPINNER } from "../render/blocks.ts";
import { type StatusInfo, formatElapsed } from "../widgets/status-line.ts";

/** What the status line reflects of the interactive session. */
export interface SessionState {
  agent: SessionView;
  /** The spinner's frame. */
  tick: number;
  /** A short-lived hint ("Press Ctrl+C again to exit"), until its time. */
  hint: { text: string; until: number } | undefined;
  /** The run's retry, said instead of "Working". */
  retrying: string | undefined;
  /** Work that holds back new prompts (a compaction). */
  busy: string | undefined;
  /** A command's transient activity ("Looking for models"). */
  activity: string | undefined;
  shell: { readonly running: boolean; readonly contextCount: number };
  /** When the agent's run started (ms since the epoch). */
  runStarted: number;
  cwd: string;
  /** A bash call of the model runs in the foreground now: Ctrl+B would send it to the background. */
  foregroundCommand?: boolean;
  /** Background jobs of the session still running. */
  runningJobs?: number;
}

/** The status line's content: the most pressing activity on the left; model, usage and context on the right. */
export function sessionStatus(state: SessionState): StatusInfo {
  const { agent, shell } = state;
  const spinner = SPINNER[state.tick % SPINNER.length]!;
  let activity = "";
  let activityStyle: "accent" | "muted" | "warning" = "muted";
  let idle = false;
  if (state.hint && state.hint.until > Date.now()) {
    activity = state.hint.text;
    activityStyle = "warning";
  } else if (agent.isRunning) {
    const background = state.foregroundCommand ? " · ctrl+b backgrounds" : "";
    activity = `${spinner} ${state.retrying ?? state.busy ?? "Working"} ${formatElapsed(Date.now() - state.runStarted)} · esc to interrupt${background}`;
    activityStyle = "accent";
  } else if (state.busy ?? state.activity) {
    activity = `${spinner} ${state.busy ?? state.activity}…`;
    activityStyle = "accent";
  } else if (shell.running) {
    activity = `${spinner} Running a shell command · esc to stop · ctrl+b backgrounds`;
    activityStyle = "accent";
  } else if (shell.contextCount > 0) {
    activity = `+${shell.contextCount} shell output for your next message`;
  } else {
    activity = displayPath(state.cwd);
    idle = true;
  }
  const model = agent.model;
  return {
    activity,
    activityStyle,
    ...(idle ? { activityShrinks: true } : {}),
    model: model.id,
    ...(model.reasoning ? { thinking: agent.thinking } : {}),
    input: agent.usage.input + agent.usage.cacheRead + agent.usage.cacheWrite,
    output: agent.usage.output,
    cost: agent.usage.cost.total,
    contextPercent: Math.min(100, Math.round((agent.contextTokens() / model.contextWindow) * 100)),
    ...(state.runningJobs ? { jobs: state.runningJobs } : {}),
  };
}
