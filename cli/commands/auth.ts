import { checkKnownProvider } from "../../core/auth/known-providers.ts";
import { LocalCredentialSource } from "../../core/auth/local-source.ts";
import { openCredentialSource } from "../../core/broker/credential-source.ts";
import type { CredentialSource } from "../../core/auth/source.ts";
import { CredentialStore, type CredentialSummary, summary } from "../../core/auth/store.ts";
import type { BrokerCredentialSource } from "../../core/broker/client.ts";
import { refuseInBrokerMode } from "./auth-login.ts";
import { OmpError } from "../../core/errors/omp-error.ts";
import { displayPath } from "../../core/paths.ts";
import { writeStdout } from "../shared/write.ts";
import { EXIT_FAILURE, EXIT_INTERRUPTED, EXIT_USAGE } from "../../core/errors/exit-codes.ts";
import { plural } from "../../core/plural.ts";

const PROVIDER_ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function checkProvider(provider: string): void {
  if (!PROVIDER_ID.test(provider)) {
    throw new OmpError(`"${provider}" is not a provider id (letters, digits, ".", "_" and "-")`, { exitCode: EXIT_USAGE });
  }
  checkKnownProvider(provider, EXIT_USAGE);
}

/** Reads a line from the terminal without echoing it, so the key is not left on the screen. */
function readHiddenLine(prompt: string): Promise<string> {
  const stdin = process.stdin;
  process.stderr.write(prompt);
  stdin.setRawMode(true);
  stdin.resume();
  stdin.setEncoding("utf8");
  return new Promise((resolve, reject) => {
    let line = "";
    const finish = (error?: OmpError) => {
      stdin.off("data", onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write("\n");
      if (error) reject(error);
      else resolve(line);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === "\r" || char === "\n" || char === "\u0004") return finish();
        if (char === "\u0003") return finish(new OmpError("cancelled", { exitCode: EXIT_INTERRUPTED }));
        if (char === "\u007f" || char === "\b") line = line.slice(0, -1);
        else line += char;
      }
    };
    stdin.on("data", onData);
  });
}

async function readKey(provider: string): Promise<string> {
  if (process.stdin.isTTY) return readHiddenLine(`API key for ${provider} (input hidden): `);
  return Bun.stdin.text();
}

/** `omp auth add <provider> [--key <key>]`: the key comes from stdin unless given, to keep it out of shell history. */
export async function runAuthAdd(provider: string, options: { key?: string }): Promise<number> {
  refuseInBrokerMode("store a key");
  checkProvider(provider);
  const key = (options.key ?? (await readKey(provider))).trim();
  if (key === "") {
    throw new OmpError(`no key given for ${provider}: pipe it in (\`omp auth add ${provider} < keyfile\`) or paste it at the prompt`, {
      exitCode: EXIT_USAGE,
    });
  }
  // Whitespace or control characters inside a key mean a bad paste (two keys, a trailing prompt), never a real key.
  if (/[\s\p{Cc}]/u.test(key)) {
    throw new OmpError("the key contains spaces, line breaks or control characters; give only the key", { exitCode: EXIT_USAGE });
  }
  const store = CredentialStore.open();
  try {
    const stored = store.add(provider, key);
    await writeStdout(`stored ${stored.masked} for ${provider} in ${displayPath(store.path)}\n`);
  } finally {
    store.close();
  }
  return 0;
}

/** `omp auth list`: stored keys, masked. */
export async function runAuthList(options: { json?: boolean }): Promise<number> {
  const source = openCredentialSource();
  try {
    const keys = source ? await listOf(source) : [];
    if (options.json) {
      await writeStdout(`${JSON.stringify(keys, null, 2)}\n`);
    } else if (keys.length === 0) {
      await writeStdout(`no stored keys (add one with \`omp auth add <provider>\`)\n`);
    } else {
      const width = Math.max(...keys.map((key) => key.provider.length));
      const maskWidth = Math.max(...keys.map((key) => key.masked.length));
      const added = (key: { createdAt: number }) => new Date(key.createdAt * 1000).toISOString().slice(0, 10);
      const lines = keys.map((key) => `${key.provider.padEnd(width)}  ${key.masked.padEnd(maskWidth)}  ${key.createdAt ? `added ${added(key)}` : "(auth broker)"}`);
      await writeStdout(`${lines.join("\n")}\n`);
    }
  } finally {
    source?.close();
  }
  return 0;
}

async function listOf(source: CredentialSource): Promise<CredentialSummary[]> {
  if (source instanceof LocalCredentialSource) return source.store.list();
  await source.ready?.();
  const entries = (source as BrokerCredentialSource).entries();
  return entries.map((entry) => summary({ id: entry.id, provider: entry.provider, credential: entry.credential, identityKey: entry.identityKey, createdAt: 0, updatedAt: 0 }));
}

/** `omp auth remove <provider>`: exit 1 when there was nothing to remove. */
export async function runAuthRemove(provider: string): Promise<number> {
  refuseInBrokerMode("remove a key");
  if (!PROVIDER_ID.test(provider)) checkProvider(provider);
  const store = CredentialStore.open();
  try {
    const removed = store.remove(provider);
    if (removed === 0) {
      // Checked only now: keys stored for a provider models.yml no longer defines can still be removed.
      checkKnownProvider(provider, EXIT_USAGE);
      process.stderr.write(`omp: no stored key for ${provider}\n`);
      return EXIT_FAILURE;
    }
    await writeStdout(`removed ${plural(removed, "key")} for ${provider}\n`);
  } finally {
    store.close();
  }
  return 0;
}
