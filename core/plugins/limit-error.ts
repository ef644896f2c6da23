import { OmpError } from "../errors/omp-error.ts";

export type PluginLimitSetting = "plugins.maxSizeMB" | "plugins.maxEntries" | "plugins.maxCompressionRatio";

const UNIT: Record<PluginLimitSetting, string> = { "plugins.maxSizeMB": "<MB>", "plugins.maxEntries": "<n>", "plugins.maxCompressionRatio": "<n>" };

/**
 * A plugin over one of the user's limits: which setting, at what value, and how to raise it. A
 * refusal the user can act on, never an internal error.
 */
export class PluginLimitError extends OmpError {
  constructor(
    readonly setting: PluginLimitSetting,
    readonly limit: number,
    /** What was over, without the setting ("it unpacks to more than 512 MB"). */
    readonly over: string,
    /** Whose refusal it is, and what did not happen ("bomb.tgz is too big to install and was not unpacked"). */
    subject?: string,
  ) {
    super(`${subject ? `${subject}: ` : ""}${over} (${setting}; raise it with \`omp config set ${setting} ${UNIT[setting]}\`)`);
  }

  /** The same refusal, said of `subject`. */
  of(subject: string): PluginLimitError {
    return new PluginLimitError(this.setting, this.limit, this.over, subject);
  }
}
