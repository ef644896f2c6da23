import type { AssistantEvent } from "../ai/stream.ts";
import { PartialJsonStrings } from "./partial-json-strings.ts";
import type { Rule } from "./rule.ts";
import type { MatchContext, TtsrManager } from "./ttsr.ts";

/** Argument keys that name the file a call is about. */
const PATH_KEYS = new Set(["path", "file_path", "filePath", "notebook_path"]);
/** Text a call replaces, not text it introduces: an edit that removes a violation must not fire the rule. */
const OLD_KEYS = new Set(["oldText", "old_string", "old_text", "oldString"]);

/** AST conditions parse the code: once per this many new characters of a call, and at its end. */
const AST_STEP = 256;

/** Up to this much of each stream is kept for matching: a pattern is found across deltas, memory stays bounded. */
const MAX_BUFFER = 64 * 1024;

export interface StreamMatch {
  rules: Rule[];
  context: MatchContext;
  /** The tool call the match is in, for a tool stream. */
  toolCallId?: string;
}

/**
 * Feeds one reply's stream events to the rules: text and thinking deltas as they come, a tool
 * call's arguments as the string values they hold so far (with the file they name as the path).
 */
export class StreamWatch {
  private readonly toolJson = new Map<number, PartialJsonStrings>();
  /** Each text or thinking block's text so far. */
  private readonly buffers = new Map<string, string>();
  /** Each call's text length at its last AST check. */
  private readonly astChecked = new Map<number, number>();

  constructor(private readonly manager: TtsrManager) {}

  /** The provider started the reply again from nothing. */
  restart(): void {
    this.toolJson.clear();
    this.buffers.clear();
    this.astChecked.clear();
  }

  observe(event: AssistantEvent): StreamMatch | undefined {
    if (event.type === "text_delta" || event.type === "thinking_delta") {
      const source = event.type === "text_delta" ? "text" : "thinking";
      const context: MatchContext = { source };
      const key = `${source}:${event.contentIndex}`;
      const text = ((this.buffers.get(key) ?? "") + event.delta).slice(-MAX_BUFFER);
      this.buffers.set(key, text);
      const rules = this.manager.check(text, context);
      return rules.length > 0 ? { rules, context } : undefined;
    }
    if (event.type !== "toolcall_delta" && event.type !== "toolcall_end") return undefined;
    let reader = this.toolJson.get(event.contentIndex);
    if (!reader) this.toolJson.set(event.contentIndex, (reader = new PartialJsonStrings()));
    if (event.type === "toolcall_delta") reader.feed(event.delta);
    // The end adds nothing a regex has not seen; it is the last chance for the AST conditions.
    else if (!this.manager.hasAstRules()) return undefined;
    const call = event.partial.content[event.contentIndex];
    if (call?.type !== "toolCall") return undefined;
    const strings = reader.strings;
    const path = strings.find((entry) => PATH_KEYS.has(entry.key))?.value;
    const text = strings.filter((entry) => !PATH_KEYS.has(entry.key) && !OLD_KEYS.has(entry.key)).map((entry) => entry.value).join("\n");
    const checked = this.astChecked.get(event.contentIndex) ?? 0;
    const ast = this.manager.hasAstRules() && path !== undefined && (event.type === "toolcall_end" || text.length - checked >= AST_STEP);
    if (ast) this.astChecked.set(event.contentIndex, text.length);
    const context: MatchContext = { source: "tool", toolName: call.name, ...(path ? { path } : {}), ...(ast ? { ast } : {}) };
    const rules = this.manager.check(text.slice(-MAX_BUFFER), context);
    return rules.length > 0 ? { rules, context, toolCallId: call.id } : undefined;
  }
}
