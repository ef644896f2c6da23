import type { AssistantEvent } from "../ai/stream.ts";
import { partialJsonStrings } from "./partial-json-strings.ts";
import type { Rule } from "./rule.ts";
import type { MatchContext, TtsrManager } from "./ttsr.ts";

/** Argument keys that name the file a call is about. */
const PATH_KEYS = new Set(["path", "file_path", "filePath", "notebook_path"]);
/** Text a call replaces, not text it introduces: an edit that removes a violation must not fire the rule. */
const OLD_KEYS = new Set(["oldText", "old_string", "old_text", "oldString"]);

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
  private readonly toolJson = new Map<number, string>();

  constructor(private readonly manager: TtsrManager) {
    manager.resetBuffer();
  }

  /** The provider started the reply again from nothing. */
  restart(): void {
    this.toolJson.clear();
    this.manager.resetBuffer();
  }

  observe(event: AssistantEvent): StreamMatch | undefined {
    if (event.type === "text_delta" || event.type === "thinking_delta") {
      const source = event.type === "text_delta" ? "text" : "thinking";
      const context: MatchContext = { source };
      const rules = this.manager.checkDelta(`${source}:${event.contentIndex}`, event.delta, context);
      return rules.length > 0 ? { rules, context } : undefined;
    }
    if (event.type !== "toolcall_delta") return undefined;
    const json = (this.toolJson.get(event.contentIndex) ?? "") + event.delta;
    this.toolJson.set(event.contentIndex, json);
    const call = event.partial.content[event.contentIndex];
    if (call?.type !== "toolCall") return undefined;
    const strings = partialJsonStrings(json);
    const path = strings.find((entry) => PATH_KEYS.has(entry.key))?.value;
    const text = strings.filter((entry) => !PATH_KEYS.has(entry.key) && !OLD_KEYS.has(entry.key)).map((entry) => entry.value).join("\n");
    const context: MatchContext = { source: "tool", toolName: call.name, ...(path ? { path } : {}) };
    const rules = this.manager.checkSnapshot(`tool:${event.contentIndex}`, text, context);
    return rules.length > 0 ? { rules, context, toolCallId: call.id } : undefined;
  }
}
