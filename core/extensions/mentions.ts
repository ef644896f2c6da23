import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, resolve } from "node:path";
import type { ImageContent, TextContent } from "../ai/messages.ts";
import { OmpError } from "../errors/omp-error.ts";
import { EXIT_USAGE } from "../errors/exit-codes.ts";

const IMAGE_TYPES: Record<string, string> = { ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".gif": "image/gif", ".webp": "image/webp" };
const MAX_TEXT = 256 * 1024;
const MAX_IMAGE = 5 * 1024 * 1024;

/** A file the user attached with `@path`: its text in a tagged block, or an image. */
export function attachFile(path: string, cwd: string): TextContent | ImageContent {
  const full = resolve(cwd, path);
  if (!existsSync(full)) throw new OmpError(`@${path}: no such file (looked in ${cwd})`, { exitCode: EXIT_USAGE });
  const stat = statSync(full);
  if (stat.isDirectory()) throw new OmpError(`@${path} is a directory; mention files, or ask the agent to look at the directory`, { exitCode: EXIT_USAGE });
  const mimeType = IMAGE_TYPES[extname(full).toLowerCase()];
  if (mimeType) {
    if (stat.size > MAX_IMAGE) throw new OmpError(`@${path}: image is ${stat.size} bytes, more than ${MAX_IMAGE}`, { exitCode: EXIT_USAGE });
    return { type: "image", data: readFileSync(full).toString("base64"), mimeType };
  }
  const bytes = readFileSync(full);
  if (bytes.subarray(0, 8000).includes(0)) throw new OmpError(`@${path} is a binary file; only text and images can be attached`, { exitCode: EXIT_USAGE });
  let text = bytes.toString("utf8");
  if (text.length > MAX_TEXT) text = `${text.slice(0, MAX_TEXT)}\n[cut at ${MAX_TEXT} characters; read the rest with the read tool]`;
  return { type: "text", text: `<file path="${path}">\n${text}\n</file>` };
}

/** A mention shaped like a file (a `/` or an extension), worth a warning when it names nothing. */
function looksLikePath(text: string): boolean {
  if (text.includes("@") || /^[a-z][a-z0-9+.-]*:/i.test(text)) return false;
  return text.includes("/") || /\.[A-Za-z0-9]{1,8}$/.test(text);
}

/**
 * `@path` mentions inside a prompt that name existing files (relative to cwd) are attached after
 * the prompt, as Claude Code does. Everything else stays text: `@pytest.fixture`, `@angular/cli`,
 * an e-mail address, a path that does not exist, a folder, a binary file, a file `allow` refuses.
 * `note` hears about a mention shaped like a file that could not be attached (a warning at most).
 */
export function expandMentions(prompt: string, cwd: string, allow?: (fullPath: string) => boolean, note?: (line: string) => void): (TextContent | ImageContent)[] {
  const attachments: (TextContent | ImageContent)[] = [];
  const seen = new Set<string>();
  for (const match of prompt.matchAll(/(?:^|\s)@([^\s"'`]+)/g)) {
    const path = match[1]!.replace(/[.,;:!?)]+$/, "");
    if (seen.has(path)) continue;
    seen.add(path);
    const full = resolve(cwd, path);
    if (!existsSync(full)) {
      if (looksLikePath(path)) note?.(`@${path}: no such file (looked in ${cwd}); sent as text`);
      continue;
    }
    if (!statSync(full).isFile() || (allow && !allow(full))) continue;
    try {
      attachments.push(attachFile(path, cwd));
    } catch (error) {
      note?.(`${(error as Error).message}; sent as text`);
    }
  }
  return [{ type: "text", text: prompt }, ...attachments];
}
