/** Claude Code's hook events, as written in config.yml `hooks:` and plugins' hooks.json. */
export const HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "PreToolUse",
  "PostToolUse",
  "Stop",
  "SubagentStop",
  "PreCompact",
  "SessionEnd",
  "Notification",
] as const;
