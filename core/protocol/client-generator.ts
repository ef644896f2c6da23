import type { JsonSchema, ProtocolDocument } from "./json-schema.ts";
import { CLIENT_RUNTIME } from "./client-runtime.ts";

/**
 * A TypeScript client for `omp --mode rpc`, generated from the protocol's JSON Schema (not from
 * the zod schemas), so it is what any generator reading the published schema could make: a type
 * per definition, a typed method per command, typed events. The file has no dependencies and runs
 * under Node and Bun.
 */

const REF = "#/$defs/";

/** A schema as a TypeScript type expression. */
function typeOf(schema: JsonSchema | boolean | undefined, indent: string): string {
  if (schema === undefined || schema === true) return "unknown";
  if (schema === false) return "never";
  if (typeof schema.$ref === "string") {
    if (!schema.$ref.startsWith(REF)) throw new Error(`the client generator only follows references into $defs, not ${schema.$ref}`);
    return schema.$ref.slice(REF.length);
  }
  if (schema.not !== undefined && Object.keys(schema.not as object).length === 0) return "undefined";
  if ("const" in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return schema.enum.map((value) => JSON.stringify(value)).join(" | ");
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (union) return [...new Set(union.map((member) => typeOf(member, indent)))].join(" | ");
  if (Array.isArray(schema.allOf)) return schema.allOf.map((member) => `(${typeOf(member as JsonSchema, indent)})`).join(" & ");
  if (Array.isArray(schema.type)) return schema.type.map((type) => typeOf({ ...schema, type }, indent)).join(" | ");
  switch (schema.type) {
    case "string":
      return "string";
    case "number":
    case "integer":
      return "number";
    case "boolean":
      return "boolean";
    case "null":
      return "null";
    case "array": {
      const item = typeOf(schema.items as JsonSchema | undefined, indent);
      return /^[\w.]+$/.test(item) ? `${item}[]` : `Array<${item}>`;
    }
    case "object":
      return objectType(schema, indent);
    case undefined:
      return "unknown";
    default:
      throw new Error(`the client generator does not know JSON Schema type ${JSON.stringify(schema.type)}`);
  }
}

function objectType(schema: JsonSchema, indent: string): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const inner = `${indent}  `;
  const lines = Object.entries(properties).map(([name, property]) => {
    const key = /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name);
    const doc = typeof property.description === "string" ? `${inner}/** ${property.description.replaceAll("*/", "* /")} */\n` : "";
    return `${doc}${inner}${key}${required.has(name) ? "" : "?"}: ${typeOf(property, inner)};`;
  });
  const rest = schema.additionalProperties;
  if (rest !== undefined && rest !== false) lines.push(`${inner}[key: string]: ${rest === true ? "unknown" : typeOf(rest as JsonSchema, inner)};`);
  return lines.length === 0 ? "Record<string, unknown>" : `{\n${lines.join("\n")}\n${indent}}`;
}

/** `get_available_models` → `getAvailableModels`. */
export function methodName(command: string): string {
  return command.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}

/** The commands the schema defines, each with whether it takes fields of its own that are required. */
export function commandsOf(document: ProtocolDocument): { type: string; needsParams: boolean; hasParams: boolean }[] {
  const union = (document.$defs.RpcCommand.oneOf ?? document.$defs.RpcCommand.anyOf) as JsonSchema[];
  return union.map((variant) => {
    const properties = variant.properties as Record<string, JsonSchema>;
    const type = properties.type?.const;
    if (typeof type !== "string") throw new Error("every RpcCommand variant needs a constant type");
    const own = (names: string[]) => names.filter((name) => name !== "type" && name !== "id");
    return { type, needsParams: own((variant.required ?? []) as string[]).length > 0, hasParams: own(Object.keys(properties)).length > 0 };
  });
}

export function generateClient(document: ProtocolDocument): string {
  const version = document["x-protocol-version"];
  const types = Object.entries(document.$defs).map(([name, schema]) => `export type ${name} = ${typeOf(schema, "")};`);
  const methods = commandsOf(document).map(({ type, needsParams, hasParams }) => {
    const params = hasParams ? `params${needsParams ? "" : "?"}: CommandParams<${JSON.stringify(type)}>` : "";
    const fields = hasParams ? `, ...params` : "";
    return `  /** The \`${type}\` command; resolves with its result, rejects with an RpcError. */\n  ${methodName(type)}(${params}): Promise<RpcResults[${JSON.stringify(type)}]> {\n    return this.request({ type: ${JSON.stringify(type)}${fields} } as RpcCommand) as Promise<RpcResults[${JSON.stringify(type)}]>;\n  }`;
  });
  return [
    "// A client of omp's session protocol over `omp --mode rpc`, generated from its JSON Schema by `omp protocol client`.",
    `// Protocol version ${version}. Do not edit: generate it again from the omp you drive.`,
    "/* eslint-disable */",
    `import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";`,
    "",
    `/** The protocol version this client speaks; start() refuses an omp that reports another. */`,
    `export const PROTOCOL_VERSION = ${version};`,
    "",
    ...types,
    "",
    CLIENT_RUNTIME,
    "",
    "/** A client of one `omp --mode rpc` process: a typed method per command, typed events. */",
    "export class OmpRpcClient extends RpcConnection {",
    "  /** Starts `omp --mode rpc` (with `args`, e.g. a model) and resolves once it is ready and speaks this client's protocol version. */",
    "  static async start(options: StartOptions = {}): Promise<OmpRpcClient> {",
    "    const client = new OmpRpcClient(launch(options));",
    "    await client.ready;",
    "    await client.checkVersion();",
    "    return client;",
    "  }",
    "",
    methods.join("\n\n"),
    "}",
    "",
  ].join("\n");
}
