/**
 * `${VAR}` and `${VAR:-default}` in a server entry, as Claude Code expands them; a bare `$VAR` is
 * left alone (it is common in arguments meant for a shell the server runs).
 */

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

export class UnsetVariableError extends Error {
  constructor(readonly variable: string) {
    super(`\${${variable}} is not set`);
  }
}

export function expandVariables(text: string, env: Record<string, string | undefined>): string {
  return text.replace(REFERENCE, (_match, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (fallback !== undefined) return fallback;
    if (value !== undefined) return value;
    throw new UnsetVariableError(name);
  });
}

export function expandRecord(record: Record<string, string>, env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expandVariables(value, env)]));
}
