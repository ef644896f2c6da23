import { describeError } from "../../../core/errors/omp-error.ts";
import type { CommandHost, SlashCommand } from "./commands.ts";

/** `/settings`: the settings screen (settings-panel.ts, loaded on first use: it brings the schema). */
export const SETTINGS_COMMAND: SlashCommand = {
  name: "settings",
  description: "every setting: its value, where it comes from, what it does; change it in place",
  async run(host: CommandHost) {
    const [{ SettingsPanel }, { loadSettings }] = await Promise.all([import("../widgets/settings-panel.ts"), import("../../../core/config/settings.ts")]);
    try {
      const reload = () => {
        const before = { approvalMode: host.runtime.options.settings.approvalMode };
        const loaded = host.runtime.reloadSettings() ?? loadSettings({ cwd: host.cwd });
        host.settingsChanged(before);
        return loaded;
      };
      const names = host.agent.tools.map((tool) => tool.name);
      host.openPanel((changed) => new SettingsPanel({ cwd: host.cwd, reload, names, changed }));
    } catch (error) {
      host.notice("error", describeError(error));
    }
  },
};
