import type { Message, TextContent } from "../../../core/ai/messages.ts";
import { COMPACTION_SUMMARY_PREFIX } from "../../../core/session/compaction-summary.ts";
import { withoutSystemNotes } from "../../../core/session/modes.ts";

export interface ExportInfo {
  sessionId: string;
  model: string;
  cwd: string;
  date: Date;
}

/** Tool output beyond this many lines is cut in exports; the session file keeps all of it. */
const OUTPUT_LINES = 200;

type Section =
  | { kind: "user"; text: string }
  | { kind: "assistant"; text: string; thinking: string }
  | { kind: "tool"; name: string; args: string; output: string; isError: boolean }
  | { kind: "summary"; text: string };

function textOf(content: string | { type: string }[]): string {
  if (typeof content === "string") return content;
  return content
    .filter((c): c is TextContent => c.type === "text")
    .map((c) => c.text)
    .join("\n\n");
}

function sections(messages: readonly Message[]): Section[] {
  const out: Section[] = [];
  const calls = new Map<string, { name: string; args: string }>();
  for (const message of messages) {
    if (message.role === "user") {
      // What the user wrote, without omp's notes for the model (memories, hooks' context, plan mode), as the transcript shows it.
      const text = textOf(typeof message.content === "string" ? message.content : withoutSystemNotes(message.content));
      if (text.startsWith(COMPACTION_SUMMARY_PREFIX)) out.push({ kind: "summary", text: text.slice(COMPACTION_SUMMARY_PREFIX.length).trim() });
      else out.push({ kind: "user", text });
    } else if (message.role === "assistant") {
      const text = textOf(message.content);
      const thinking = message.content
        .filter((c) => c.type === "thinking")
        .map((c) => (c.type === "thinking" ? c.thinking : ""))
        .join("\n\n");
      if (text || thinking) out.push({ kind: "assistant", text, thinking });
      for (const part of message.content) {
        if (part.type === "toolCall") calls.set(part.id, { name: part.name, args: JSON.stringify(part.arguments) });
      }
    } else {
      const call = calls.get(message.toolCallId);
      const lines = textOf(message.content).split("\n");
      const output = lines.length > OUTPUT_LINES ? [...lines.slice(0, OUTPUT_LINES), `… ${lines.length - OUTPUT_LINES} more lines`].join("\n") : lines.join("\n");
      out.push({ kind: "tool", name: message.toolName, args: call?.args ?? "", output, isError: message.isError });
    }
  }
  return out;
}

/** A fence longer than any backtick run inside, so the content cannot close it. */
function fence(text: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  return "`".repeat(longest + 1);
}

export function toMarkdown(messages: readonly Message[], info: ExportInfo): string {
  const parts = [`# omp session ${info.sessionId}`, "", `- Model: ${info.model}`, `- Directory: ${info.cwd}`, `- Exported: ${info.date.toISOString()}`, ""];
  for (const section of sections(messages)) {
    switch (section.kind) {
      case "user":
        parts.push("## User", "", section.text, "");
        break;
      case "summary":
        parts.push("## Summary of the earlier conversation", "", section.text, "");
        break;
      case "assistant":
        parts.push("## Assistant", "");
        if (section.thinking) parts.push(section.thinking.split("\n").map((l) => `> ${l}`).join("\n"), "");
        if (section.text) parts.push(section.text, "");
        break;
      case "tool": {
        const f = fence(section.output);
        parts.push(`### ${section.isError ? "✗" : "✓"} ${section.name} \`${section.args.replace(/`/g, "'")}\``, "", f, section.output, f, "");
        break;
      }
    }
  }
  return parts.join("\n");
}

const escapeHtml = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");

function inlineHtml(text: string): string {
  return escapeHtml(text)
    .replace(/`([^`]+)`/g, "<code>$1</code>")
    .replace(/\*\*([^*]+)\*\*/g, "<strong>$1</strong>")
    .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, "$1<em>$2</em>")
    .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2">$1</a>');
}

/** Enough markdown for an export to read well: fences, headings, lists, paragraphs, inline code and emphasis. */
function markdownHtml(markdown: string): string {
  const out: string[] = [];
  const lines = markdown.split("\n");
  let paragraph: string[] = [];
  let list: string[] = [];
  const flush = () => {
    if (paragraph.length) out.push(`<p>${paragraph.map(inlineHtml).join("<br>")}</p>`);
    if (list.length) out.push(`<ul>${list.map((item) => `<li>${inlineHtml(item)}</li>`).join("")}</ul>`);
    paragraph = [];
    list = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const fenceMatch = /^\s*(`{3,}|~{3,})(.*)$/.exec(line);
    if (fenceMatch) {
      flush();
      const code: string[] = [];
      for (i++; i < lines.length && !lines[i]!.trim().startsWith(fenceMatch[1]!); i++) code.push(lines[i]!);
      out.push(`<pre><code>${escapeHtml(code.join("\n"))}</code></pre>`);
      continue;
    }
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      const level = Math.min(6, heading[1]!.length + 2);
      out.push(`<h${level}>${inlineHtml(heading[2]!)}</h${level}>`);
      continue;
    }
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) {
      if (paragraph.length) flush();
      list.push(item[1]!);
      continue;
    }
    if (line.trim() === "") flush();
    else {
      if (list.length) flush();
      paragraph.push(line);
    }
  }
  flush();
  return out.join("\n");
}

export function toHtml(messages: readonly Message[], info: ExportInfo): string {
  const body: string[] = [];
  for (const section of sections(messages)) {
    switch (section.kind) {
      case "user":
        body.push(`<section class="user"><h2>User</h2><div class="text">${escapeHtml(section.text)}</div></section>`);
        break;
      case "summary":
        body.push(`<section class="summary"><h2>Summary of the earlier conversation</h2>${markdownHtml(section.text)}</section>`);
        break;
      case "assistant":
        body.push(
          `<section class="assistant"><h2>Assistant</h2>${section.thinking ? `<details><summary>Thinking</summary><div class="thinking">${escapeHtml(section.thinking)}</div></details>` : ""}${markdownHtml(section.text)}</section>`,
        );
        break;
      case "tool":
        body.push(
          `<section class="tool${section.isError ? " error" : ""}"><h3>${section.isError ? "✗" : "✓"} ${escapeHtml(section.name)} <code>${escapeHtml(section.args)}</code></h3><pre>${escapeHtml(section.output)}</pre></section>`,
        );
        break;
    }
  }
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>omp session ${escapeHtml(info.sessionId)}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:860px;margin:2em auto;padding:0 1em;color:#1f2330;background:#fafafa}
header{color:#667;border-bottom:1px solid #ddd;margin-bottom:1em}
section{margin:1em 0;padding:.5em 1em;border-radius:6px;background:#fff;border:1px solid #e4e4ea}
section.user{background:#eef2ff}section.tool{background:#f6f6f8;font-size:13px}section.error{border-color:#e5a0a8}
h2{font-size:13px;text-transform:uppercase;color:#778;margin:.2em 0}h3{font-size:13px;margin:.2em 0}
pre{overflow:auto;background:#f0f0f4;padding:.6em;border-radius:4px;white-space:pre-wrap}
.text,.thinking{white-space:pre-wrap}.thinking{color:#778;font-style:italic}
code{font:13px ui-monospace,monospace}
@media (prefers-color-scheme:dark){body{background:#16161e;color:#c0caf5}section{background:#1f2335;border-color:#2f3549}section.user{background:#24283b}section.tool{background:#1a1b26}pre{background:#14141c}header{border-color:#2f3549}}
</style></head><body>
<header><h1>omp session</h1><p>${escapeHtml(info.sessionId)} · ${escapeHtml(info.model)} · ${escapeHtml(info.cwd)} · ${escapeHtml(info.date.toISOString())}</p></header>
${body.join("\n")}
</body></html>
`;
}
