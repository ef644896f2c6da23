import type { ToolSpec } from "../ai/stream.ts";
import type { ContextFile } from "./context-files.ts";

export interface SystemPromptInput {
  cwd: string;
  tools: ToolSpec[];
  contextFiles: ContextFile[];
  /** RULES.md files: requirements that always apply. */
  rules?: ContextFile[];
  /** The listed rules' section (core/rules/rulebook.ts): names and descriptions, read as rule://<name>. */
  rulebook?: string;
  git: string;
  /** The Skills section (core/extensions/skills-prompt.ts): names and descriptions; bodies load on use. */
  skills?: string;
  now?: Date;
  /** `--system-prompt` or SYSTEM.md: replaces the built-in instructions (environment and context still follow). */
  replace?: string;
  /** `--append-system-prompt` or APPEND_SYSTEM.md. */
  append?: string;
}

const INSTRUCTIONS = `You are omp, a coding agent in the user's terminal and repository: you read code, change it, run commands and tests, and report what you did.

How to work:
- Look before you change: read the files involved and search the code (grep, find); do not guess.
- Change files with edit (exact replacements) or write (whole files); keep changes focused on the task.
- Run the project's checks or tests with bash when they exist; fix what your change broke.
- When a tool fails, read the error and adjust; do not repeat the same failing call.
- Be concise. When done, say briefly what changed and anything the user must know.`;

/** Without tools (--no-tools) the model can only answer: nothing may suggest it could act. */
const INSTRUCTIONS_NO_TOOLS = `You are omp, a coding assistant answering in the user's terminal, about their repository. You cannot read files, run commands or change anything in this session: work from what the user shows you, say what you would need to see when it is not enough, and give changes as code the user can apply.

Be concise and precise.`;

/** The system prompt: instructions, tools, environment, repository state and the user's context files. */
export function buildSystemPrompt(input: SystemPromptInput): string {
  // GPT models edit with apply_patch instead of edit (core/tools/edit/mode.ts).
  const instructions = input.tools.some((tool) => tool.name === "apply_patch") ? INSTRUCTIONS.replace("edit (exact replacements)", "apply_patch (patches)") : INSTRUCTIONS;
  // The tools are not listed here: each request carries them with their descriptions (request economy).
  const parts = [input.replace ?? (input.tools.length > 0 ? instructions : INSTRUCTIONS_NO_TOOLS)];
  const now = input.now ?? new Date();
  parts.push(
    [
      "Environment:",
      `- Working directory: ${input.cwd}`,
      `- Platform: ${process.platform} ${process.arch}`,
      `- Shell: ${process.env.SHELL ?? "/bin/sh"}`,
      `- Date: ${now.toISOString().slice(0, 10)}`,
    ].join("\n"),
  );
  if (input.git) parts.push(`Git repository:\n${input.git}`);
  if (input.skills) parts.push(input.skills);
  if (input.contextFiles.length > 0) {
    const files = input.contextFiles.map((file) => `<file path="${file.path}">\n${file.content.trim()}\n</file>`).join("\n");
    parts.push(`<context>\nFollow the instructions in these context files from the user and the repository; later files are more specific.\n${files}\n</context>`);
  }
  if (input.rules && input.rules.length > 0) {
    parts.push(`<rules>\nThese rules from the user and the repository always apply:\n${input.rules.map((file) => `<file path="${file.path}">\n${file.content.trim()}\n</file>`).join("\n")}\n</rules>`);
  }
  if (input.rulebook) parts.push(input.rulebook);
  if (input.append) parts.push(input.append);
  return parts.join("\n\n");
}
