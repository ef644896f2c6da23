import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { egressStorePath } from "./egress.ts";

/** The remembered hosts per project: the single source of truth for egress-hosts.json. */
export const EgressStore = z.object({
  version: z.literal(1).default(1),
  projects: z.record(z.string(), z.array(z.string())).default({}),
});
export type EgressStore = z.infer<typeof EgressStore>;

export function readEgressStore(env: NodeJS.ProcessEnv = process.env): EgressStore {
  const path = egressStorePath(env);
  if (!existsSync(path)) return EgressStore.parse({});
  try {
    return EgressStore.parse(JSON.parse(readFileSync(path, "utf8")));
  } catch {
    // A damaged store names nothing: the user is asked again, which loses nothing.
    return EgressStore.parse({});
  }
}
