import type { Agent } from "../agent/agent.ts";
import type { Runtime } from "../agent/runtime.ts";
import type { ImageContent, TextContent } from "../ai/messages.ts";
import { expandMentions } from "../extensions/mentions.ts";

type Content = (TextContent | ImageContent)[];

/** What a user's message became before it went to the agent (or to the queue). */
export interface PreparedInput {
  content: Content;
  /** The command or skill the message invoked (`/name args`). */
  invoked?: { kind: string; name: string; path: string };
  /** Said to the user: a command's model that cannot be used, a mention that names nothing, a hook's block. */
  warnings: string[];
  /** An extension's command that did its work itself, or one a UserPromptExpansion hook blocked: nothing goes to the model. */
  handled: boolean;
  blocked: boolean;
  /** Switches back from the command's model, if it switched; called once the run it started ends. */
  restore(): void;
}

/**
 * A user's message as every front end sends it: `/command args` or `/skill:name args` first is
 * expanded into its prompt (the parts after it follow); otherwise `@path` mentions in the text
 * attach the files they name. A command's `model` applies to the run the message starts
 * (`startsRun`), never to one already going.
 */
export async function prepareInput(runtime: Runtime, agent: Agent, content: Content, startsRun: boolean): Promise<PreparedInput> {
  const first = content[0];
  if (first?.type === "text" && first.text.startsWith("/")) {
    const { prepareInvocation } = await import("./invoke.ts");
    const invocation = await prepareInvocation(runtime, agent, first.text, { switchModel: startsRun });
    if (invocation) {
      const handled = invocation.content.length === 0;
      return {
        content: handled ? [] : [...invocation.content, ...content.slice(1)],
        invoked: { kind: invocation.kind, name: invocation.name, path: invocation.path },
        warnings: invocation.warnings,
        handled,
        blocked: invocation.blocked === true,
        restore: invocation.restore,
      };
    }
  }
  const warnings: string[] = [];
  const cwd = runtime.options.cwd;
  const expanded = content.flatMap((part) => (part.type === "text" ? expandMentions(part.text, cwd, runtime.extensions.mayAttach, (line) => warnings.push(line)) : [part]));
  return { content: expanded, warnings, handled: false, blocked: false, restore: () => {} };
}
