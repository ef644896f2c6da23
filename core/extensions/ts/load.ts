import * as zod from "zod";
import type { AgentExtensions, ExtensionsFactory, SessionInfo } from "../agent-extensions.ts";
import { describeError } from "../../errors/omp-error.ts";
import { displayPath } from "../../paths.ts";
import { defineTool } from "../../tools/define.ts";
import type { ToolHookPoint } from "../../tools/hook-points.ts";
import type { Tool, ToolResult } from "../../tools/types.ts";
import type { ExtensionAPI, ExtensionCommand, ExtensionContext, ExtensionEventName, ExtensionTool } from "./api.ts";

const { z } = zod;

/** A command registered by an extension, with the file that registered it. */
export interface LoadedCommand extends ExtensionCommand {
  name: string;
  file: string;
}

type Handler = (event: any, ctx: ExtensionContext) => unknown;

/** What one extension file did, for the listing: what it registered, or why it failed. */
export interface ExtensionReport {
  file: string;
  tools: string[];
  commands: string[];
  /** Its import or factory failed: nothing of it is in use. */
  error?: string;
  /** What it registered that was refused. */
  problems: string[];
}

export interface LoadedExtensions {
  /** The files that loaded. */
  files: string[];
  reports: ExtensionReport[];
  tools: Tool[];
  commands: LoadedCommand[];
  /** The agent side (event handlers), or undefined when no extension registered any. */
  factory?: ExtensionsFactory;
  problems: string[];
}

const isZod = (value: unknown): value is zod.ZodType => typeof (value as { safeParse?: unknown } | null)?.safeParse === "function";

/** An extension's parameters as a zod schema: as given, or made from its JSON Schema (lenient when that cannot be done). */
function schemaOf(parameters: unknown): zod.ZodType {
  if (isZod(parameters)) return parameters;
  try {
    return z.fromJSONSchema(parameters as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return z.record(z.string(), z.unknown());
  }
}

function adaptTool(spec: ExtensionTool, contextOf: () => ExtensionContext): Tool {
  const schema = schemaOf(spec.parameters);
  const tool = defineTool({
    name: spec.name,
    description: spec.description,
    effect: spec.effect ?? "exec",
    schema,
    async execute(input, context): Promise<ToolResult> {
      const onUpdate = context.onUpdate ? (partial: { content: ToolResult["content"] }) => context.onUpdate!(partial.content.map((part) => (part.type === "text" ? part.text : "")).join("")) : undefined;
      const result = await spec.execute(context.toolCallId ?? "", input as Record<string, unknown>, context.signal, onUpdate, { ...contextOf(), cwd: context.cwd });
      return typeof result === "string" ? { content: [{ type: "text", text: result }] } : result;
    },
  });
  // A JSON Schema given as such goes to the model unchanged, not as zod's rendering of it.
  return isZod(spec.parameters) ? tool : { ...tool, parameters: spec.parameters as Record<string, unknown> };
}

/**
 * The custom-tool contract (a tool module's factory returns a tool, or an array of them, whose
 * `execute` takes `(toolCallId, params, onUpdate, ctx, signal)`), as tools the extension API takes.
 */
function returnedTools(value: unknown): ExtensionTool[] {
  const list = Array.isArray(value) ? value : value && typeof value === "object" ? [value] : [];
  return list
    .filter((tool): tool is ExtensionTool => typeof tool?.name === "string" && typeof tool.execute === "function")
    .map((tool) => ({
      ...tool,
      execute: (toolCallId, params, signal, onUpdate, ctx) => (tool.execute as unknown as (...args: unknown[]) => ReturnType<ExtensionTool["execute"]>)(toolCallId, params, onUpdate, ctx, signal),
    }));
}

/**
 * Imports each extension module and runs its factory; tools the factory returns (a custom-tool
 * module) are registered like those it registers. A module that fails to import, has no
 * default-exported function, or throws is reported with its path; the others still load.
 */
export async function loadExtensions(paths: readonly string[], reserved: ReadonlySet<string>, warn: (line: string) => void): Promise<LoadedExtensions> {
  const loaded: LoadedExtensions = { files: [], reports: [], tools: [], commands: [], problems: [] };
  const handlers = new Map<ExtensionEventName, { file: string; handler: Handler }[]>();
  const names = new Set(reserved);
  // Filled per agent when it starts: tools and handlers read it at call time.
  const current: { context: ExtensionContext } = { context: { cwd: process.cwd(), sessionId: "none", sessionFile: "" } };
  for (const file of paths) {
    const where = displayPath(file);
    const report: ExtensionReport = { file, tools: [], commands: [], problems: [] };
    loaded.reports.push(report);
    const refuse = (problem: string) => {
      loaded.problems.push(problem);
      report.problems.push(problem.slice(where.length + 2));
    };
    const api: ExtensionAPI = {
      registerTool(spec) {
        if (typeof spec?.name !== "string" || !/^[a-zA-Z0-9_-]{1,64}$/.test(spec.name) || typeof spec.execute !== "function") {
          refuse(`${where}: registerTool needs a name (letters, digits, _ or -) and an execute function; tool skipped`);
          return;
        }
        if (names.has(spec.name)) {
          refuse(`${where}: a tool named ${spec.name} already exists; this one is skipped`);
          return;
        }
        try {
          loaded.tools.push(adaptTool(spec, () => current.context));
          names.add(spec.name);
          report.tools.push(spec.name);
        } catch (error) {
          refuse(`${where}: tool ${spec.name}: ${describeError(error)}; skipped`);
        }
      },
      registerCommand(name, command) {
        if (typeof command?.handler !== "function") {
          refuse(`${where}: command ${name} has no handler; skipped`);
          return;
        }
        loaded.commands.push({ ...command, name: name.replace(/^\//, ""), file });
        report.commands.push(name.replace(/^\//, ""));
      },
      on(event, handler) {
        const list = handlers.get(event) ?? [];
        list.push({ file, handler: handler as Handler });
        handlers.set(event, list);
      },
      zod,
    };
    try {
      const module = await import(file);
      const factory = module.default;
      if (typeof factory !== "function") throw new Error("its default export is not a function (export default function (api) { … })");
      for (const tool of returnedTools(await factory(api))) api.registerTool(tool);
      loaded.files.push(file);
    } catch (error) {
      loaded.problems.push(`extension ${where} failed to load: ${describeError(error)}`);
      report.error = describeError(error);
    }
  }
  if (handlers.size > 0) loaded.factory = (session) => extensionHooks(handlers, session, current, warn);
  return loaded;
}

function extensionHooks(
  handlers: Map<ExtensionEventName, { file: string; handler: Handler }[]>,
  session: SessionInfo,
  current: { context: ExtensionContext },
  warn: (line: string) => void,
): AgentExtensions {
  const context = (): ExtensionContext => {
    current.context = { cwd: session.cwd, sessionId: session.id, sessionFile: session.transcriptPath };
    return current.context;
  };
  const of = (event: ExtensionEventName) => handlers.get(event) ?? [];
  const toolHooks: ToolHookPoint[] = [];
  if (of("tool_call").length > 0 || of("tool_result").length > 0) {
    toolHooks.push({
      async beforeToolCall(call) {
        let input = call.input;
        for (const { file, handler } of of("tool_call")) {
          let answer: { block?: boolean; reason?: string; input?: Record<string, unknown> } | undefined;
          try {
            answer = (await handler({ ...call, input }, context())) as typeof answer;
          } catch (error) {
            // Fail closed: a policy that crashed must not let the call through.
            return { block: `${call.toolName} was blocked: the extension ${displayPath(file)} failed on it (${describeError(error)})` };
          }
          if (answer?.block) return { block: answer.reason ?? `${call.toolName} was blocked by the extension ${displayPath(file)}` };
          if (answer?.input) input = answer.input;
        }
        return input === call.input ? undefined : { input };
      },
      async afterToolCall(call, result) {
        let current = result;
        for (const { file, handler } of of("tool_result")) {
          try {
            const change = (await handler({ ...call, content: current.content, details: current.details, isError: current.isError ?? false }, context())) as Partial<ToolResult> | undefined;
            if (change) current = { ...current, ...change };
          } catch (error) {
            warn(`the extension ${displayPath(file)} failed on a ${call.toolName} result: ${describeError(error)}`);
          }
        }
        return current === result ? undefined : current;
      },
    });
  }
  const notify = async (event: "session_start" | "session_end", payload: { reason: string }) => {
    for (const { file, handler } of of(event)) {
      try {
        await handler(payload, context());
      } catch (error) {
        warn(`the extension ${displayPath(file)} failed on ${event}: ${describeError(error)}`);
      }
    }
  };
  return {
    toolHooks,
    async sessionStart(source) {
      await notify("session_start", { reason: source });
      return [];
    },
    sessionEnd: (reason) => notify("session_end", { reason }),
  };
}
