import type { CommandHost, SlashCommand } from "./commands.ts";

/** `/lsp`: the session's language servers (running, installed, missing) and what config left out. */
export const LSP_COMMAND: SlashCommand = {
  name: "lsp",
  description: "language servers: which run, which are installed, how to get the rest",
  async run(host: CommandHost) {
    const session = host.agent.options.lsp;
    if (!session) {
      host.notice("info", "No language servers in this session.");
      return;
    }
    const { lspOverview, overviewLines } = await import("../../../core/lsp/overview.ts");
    const running = session.started() ? (await session.get()).status() : [];
    const lines = overviewLines(lspOverview(session.cwd, session.settings.servers), running);
    if (!session.settings.enabled) host.notice("warning", "Language servers are off (lsp.enabled: false).");
    for (const line of lines) host.notice("info", line);
  },
};
