import { PROVIDERS } from "../ai/providers-table.ts";
import { loadModelsConfig } from "../config/models.ts";
import { OmpError } from "../errors/omp-error.ts";
import { OAUTH_PROVIDERS } from "./oauth/providers.ts";

/** Keys the vault holds for services other than models: `github`, the github tool's token. */
const SERVICES = ["github"];

/** Built-in providers, the subscription logins, the providers models.yml defines and the services with a key. */
export function knownProviders(cwd: string = process.cwd(), env: NodeJS.ProcessEnv = process.env): string[] {
  const configured = Object.keys(loadModelsConfig({ cwd, env }).config.providers);
  return [...new Set([...PROVIDERS.map((provider) => provider.id), ...OAUTH_PROVIDERS.map((provider) => provider.id), ...configured, ...SERVICES])].sort();
}

/** A typo (`antropic`) would store a key nothing ever reads; refuse it and say what is known. */
export function checkKnownProvider(provider: string, exitCode: number, cwd?: string, env?: NodeJS.ProcessEnv): void {
  const known = knownProviders(cwd, env);
  if (known.includes(provider)) return;
  throw new OmpError(`unknown provider "${provider}"; known providers: ${known.join(", ")} (define others in models.yml)`, { exitCode });
}
