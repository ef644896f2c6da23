import type { SessionHost } from "../../../core/session-host/host.ts";
import type { Settings } from "../../../core/config/settings-schema.ts";
import { describeError } from "../../../core/errors/omp-error.ts";

/** Keys that step through a session's choices (model, thinking) and say where they landed, and the start-up update check. */

/** Ctrl+P: the next model of the cycle (`--models`, else every model with a key), said in the status line. */
export function cycleModelKey(host: SessionHost, say: (text: string) => void): void {
  host
    .cycleModel()
    .then((selection) => say(selection ? `Model: ${selection.model.provider}/${selection.model.id}` : "No other model to switch to"))
    .catch((error) => say(describeError(error)));
}

/** Shift+Tab's old job, now Alt+T: the model's next thinking level. */
export function cycleThinkingKey(host: SessionHost, say: (text: string) => void): void {
  const model = host.view.model;
  const next = host.cycleThinking();
  say(next ? `Thinking: ${next}` : `${model.provider}/${model.id} has no thinking levels`);
}

/** The daily update check runs in the background once the prompt is up; its notice joins the transcript. */
export function checkForUpdate(update: Settings["update"], env: NodeJS.ProcessEnv, notice: (text: string) => void): void {
  void import("../../../core/update/background-check.ts")
    .then(({ startUpdateCheck, updateCheckEnabled }) => {
      if (!updateCheckEnabled(update.checkForUpdates, env)) return;
      return startUpdateCheck({ channel: update.channel, env, onNotice: notice });
    })
    .catch(() => {
      // An update check that cannot run is not worth interrupting anyone for.
    });
}
