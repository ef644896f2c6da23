import { z } from "zod";
import { CHANGELOG_CATEGORIES, type ChangelogEntries } from "./changelog.ts";
import type { StagedChanges } from "./staged.ts";
import type { CommitStyle } from "./style.ts";

/** A commit subject longer than this is cut at a word (git's own advice is 50, most logs reach 72). */
const MAX_SUBJECT = 72;

const Reply = z.object({
  subject: z.string().min(1),
  body: z.string().optional(),
  changelog: z.record(z.string(), z.record(z.string(), z.array(z.string()))).optional(),
});

export interface CommitProposal {
  subject: string;
  body: string;
  /** By changelog path (relative to the repository root). */
  changelog: Map<string, ChangelogEntries>;
}

export interface CommitPromptInput {
  changes: StagedChanges;
  style: CommitStyle;
  /** Changelog paths and the changed files each covers. */
  changelogs: Map<string, string[]>;
  /** `--context`: what the user adds. */
  context?: string;
}

export function commitSystemPrompt(input: CommitPromptInput): string {
  const { style } = input;
  const rules = [
    "You write the git commit message for the changes the user shows you, as the repository's own authors would.",
    `Subject: one line, imperative mood, at most ${MAX_SUBJECT} characters, no trailing period.`,
    style.conventional
      ? `This repository uses Conventional Commits: \`type(scope): summary\`${style.types.length > 0 ? ` with types such as ${style.types.slice(0, 6).join(", ")}` : ""}; use ! or a BREAKING CHANGE footer only for breaking changes.`
      : "Follow the style of the recent subjects shown (capitalisation, prefixes, length).",
    "Body: optional; when the change needs it, a few short lines wrapped at 72 columns saying what changed and why.",
    input.changelogs.size > 0
      ? `Changelog: the project keeps ${[...input.changelogs.keys()].join(", ")}. Give entries a user of the project would want to read, per changelog and category (${CHANGELOG_CATEGORIES.join(", ")}); none for internal changes.`
      : "",
    'Answer with JSON only: {"subject": "...", "body": "...", "changelog": {"<changelog path>": {"<Category>": ["entry", ...]}}}.',
  ];
  return rules.filter(Boolean).join("\n");
}

export function commitUserPrompt(input: CommitPromptInput): string {
  const parts: string[] = [];
  if (input.style.subjects.length > 0) parts.push(`Recent subjects in this repository:\n${input.style.subjects.map((s) => `- ${s}`).join("\n")}`);
  if (input.context) parts.push(`What the author says about this change:\n${input.context}`);
  if (input.changelogs.size > 0) parts.push(`Changelogs and the changed files they cover:\n${[...input.changelogs].map(([path, files]) => `- ${path}: ${files.join(", ")}`).join("\n")}`);
  const listed = input.changes.files.map((file) => {
    const counts = file.added === undefined ? "binary" : `+${file.added} -${file.removed}`;
    const note = file.kind === "generated" ? ", generated: diff not shown" : file.kind === "secret" ? ", may hold credentials: diff not shown" : file.kind === "binary" ? ", diff not shown" : file.omitted ? `, diff cut: ${file.omitted} characters left out` : "";
    return `- ${file.path} (${counts}${note})`;
  });
  parts.push(`Changed files (${input.changes.summary}):\n${listed.join("\n")}`);
  const diffs = input.changes.files.filter((file) => file.diff).map((file) => file.diff!.trimEnd());
  if (diffs.length > 0) parts.push(`The diff:\n${diffs.join("\n")}`);
  return parts.join("\n\n");
}

/**
 * The model's answer as a proposal: its JSON (fenced or not), or, when a model ignored the format,
 * its first line as the subject and the rest as the body. Changelog categories are matched without
 * regard to case; unknown ones and changelogs nobody asked for are dropped.
 */
export function parseCommitReply(text: string, changelogs: Map<string, string[]>): CommitProposal {
  const trimmed = text.trim();
  const json = /^```(?:json)?\s*([\s\S]*?)\s*```$/.exec(trimmed)?.[1] ?? trimmed.slice(trimmed.indexOf("{"), trimmed.lastIndexOf("}") + 1);
  let parsed: z.infer<typeof Reply> | undefined;
  try {
    parsed = Reply.parse(JSON.parse(json));
  } catch {
    parsed = undefined;
  }
  if (!parsed) {
    const [first = "", ...rest] = trimmed.replace(/^```\w*\n?|```$/g, "").split("\n");
    return { subject: cleanSubject(first), body: rest.join("\n").trim(), changelog: new Map() };
  }
  const changelog = new Map<string, ChangelogEntries>();
  for (const [path, categories] of Object.entries(parsed.changelog ?? {})) {
    if (!changelogs.has(path)) continue;
    const entries: ChangelogEntries = {};
    for (const [name, lines] of Object.entries(categories)) {
      const category = CHANGELOG_CATEGORIES.find((c) => c.toLowerCase() === name.trim().toLowerCase());
      if (category && lines.length > 0) entries[category] = [...(entries[category] ?? []), ...lines];
    }
    if (Object.keys(entries).length > 0) changelog.set(path, entries);
  }
  return { subject: cleanSubject(parsed.subject), body: (parsed.body ?? "").trim(), changelog };
}

function cleanSubject(raw: string): string {
  const line = raw.trim().split("\n")[0]!.replace(/^["'`]+|["'`]+$/g, "").replace(/\.$/, "").trim();
  if (line.length <= MAX_SUBJECT) return line;
  const cut = line.slice(0, MAX_SUBJECT);
  return cut.slice(0, cut.lastIndexOf(" ") > 20 ? cut.lastIndexOf(" ") : MAX_SUBJECT);
}

/** The message as git gets it: subject, blank line, body. */
export function messageText(proposal: Pick<CommitProposal, "subject" | "body">): string {
  return proposal.body ? `${proposal.subject}\n\n${proposal.body}\n` : `${proposal.subject}\n`;
}
