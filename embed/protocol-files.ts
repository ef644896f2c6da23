import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateClient } from "../core/protocol/client-generator.ts";
import { protocolJsonSchema } from "../core/protocol/json-schema.ts";

/** The files the build puts beside the executable for programs that drive omp: the protocol's JSON Schema and the TypeScript client generated from it. */
export const PROTOCOL_FILES = { schema: "omp-protocol.schema.json", client: "omp-rpc-client.ts" };

export function writeProtocolFiles(dir: string): void {
  const document = protocolJsonSchema();
  writeFileSync(join(dir, PROTOCOL_FILES.schema), `${JSON.stringify(document, null, 2)}\n`);
  writeFileSync(join(dir, PROTOCOL_FILES.client), generateClient(document));
}
