/** A subagent: an agent file (markdown with frontmatter) or the built-in one. */
export interface AgentDefinition {
  name: string;
  description: string;
  /** Tool names (omp's or Claude's); absent: every tool the parent has, except task. */
  tools?: string[];
  /** A model pattern; `inherit` for the parent's; absent: the smol role's model when one is configured, else the parent's. */
  model?: string;
  /** The file's body. */
  systemPrompt: string;
  /** Absent for the built-in agent. */
  file?: string;
}

/** Claude Code's general-purpose agent, which every session has. */
export const GENERAL_PURPOSE: AgentDefinition = {
  name: "general-purpose",
  description:
    "Researches questions, searches code and carries out multi-step tasks; use it for a search that may take more than a few tries.",
  systemPrompt:
    "You are a subagent of omp, a coding agent. Another agent gave you the task below; do it fully with the tools you have, then answer with a concise report of what you found or did: that report is all the other agent sees. Include file paths and the facts it needs; do not ask questions back.",
};
