import { declared } from "./declare.ts";
import { retain as retainDeclaration, recall as recallDeclaration, reflect as reflectDeclaration } from "./declarations/memory.ts";
import { z } from "zod";
import { Settings } from "../config/settings-schema.ts";
import { type BankScope, bankScope, memoryDbPath, memoryEnabled, memoryOff } from "../memory/banks.ts";
import { formatRecall, formatReflection } from "../memory/format.ts";
import { MemoryError, MemoryStore } from "../memory/store.ts";
import { plural } from "../plural.ts";
import { Redactor } from "../session/redact.ts";
import { errorResult, textResult } from "./format.ts";
import type { ToolContext, ToolDefinition, ToolResult } from "./types.ts";

/** The store and banks of the calling session, for the length of `use`; a refusal becomes an error result. */
async function withBanks<D>(context: ToolContext, use: (store: MemoryStore, scope: BankScope, settings: Settings) => ToolResult<D>): Promise<ToolResult<D>> {
  const settings = context.settings ?? Settings.parse({});
  if (!memoryEnabled(settings)) return errorResult(memoryOff(settings));
  try {
    return MemoryStore.using(memoryDbPath(settings), (store) => use(store, bankScope(settings, context.cwd), settings));
  } catch (error) {
    if (error instanceof MemoryError) return errorResult(error.message);
    throw error;
  }
}

const retainSchema = z.object({
  items: z
    .array(
      z.object({
        content: z.string().describe("A self-contained fact"),
        context: z.string().optional().describe("Its source"),
      }),
    )
    .min(1)
    .max(32)
    .describe("Memories to store"),
});

export const retainTool: ToolDefinition<typeof retainSchema, { count: number }> = {
  ...declared(retainDeclaration),
  schema: retainSchema,
  execute: (input, context) =>
    withBanks(context, (store, scope) => {
      // Stored memories never hold secrets: the session's own redaction (known keys, credential shapes).
      const redact = context.redact ?? ((text: string) => new Redactor().redact(text));
      store.add(
        scope.retain,
        input.items.map((item) => ({ content: redact(item.content), ...(item.context ? { context: redact(item.context) } : {}), source: "retain", cwd: context.cwd })),
      );
      return textResult(`${plural(input.items.length, "memory", "memories")} stored.`, { count: input.items.length });
    }),
};

const recallSchema = z.object({ query: z.string().describe("What to look for, in words") });

export const recallTool: ToolDefinition<typeof recallSchema> = {
  ...declared(recallDeclaration),
  schema: recallSchema,
  execute: (input, context) => withBanks(context, (store, scope, settings) => textResult(formatRecall(store.search(scope.recall, input.query, settings.mnemopi.recallLimit)))),
};

const reflectSchema = z.object({
  query: z.string().describe("The question to answer from memory"),
  context: z.string().optional().describe("Extra guidance"),
});

export const reflectTool: ToolDefinition<typeof reflectSchema> = {
  ...declared(reflectDeclaration),
  schema: reflectSchema,
  execute: (input, context) =>
    withBanks(context, (store, scope, settings) => {
      const query = input.context?.trim() ? `${input.query}\n\nAdditional context:\n${input.context.trim()}` : input.query;
      return textResult(formatReflection(store.search(scope.recall, query, settings.mnemopi.recallLimit)));
    }),
};
