import { generateClient } from "../../core/protocol/client-generator.ts";
import { protocolJsonSchema } from "../../core/protocol/json-schema.ts";
import { writeStdout } from "../shared/write.ts";

export async function runProtocolSchema(): Promise<number> {
  await writeStdout(`${JSON.stringify(protocolJsonSchema(), null, 2)}\n`);
  return 0;
}

export async function runProtocolClient(): Promise<number> {
  await writeStdout(generateClient(protocolJsonSchema()));
  return 0;
}
