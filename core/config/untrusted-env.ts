import { PROVIDERS } from "../ai/providers-table.ts";

/**
 * Which variables a project `.env` may not set while its folder is untrusted. The names are open
 * ended (a project's own app reads whatever it likes), so this is a deny-list, by family: what
 * runs code in shells, interpreters, loaders and git; what moves requests (proxies, base URLs,
 * hosts) or swaps credentials (every provider's variables); and omp's own.
 */

const EXACT = new Set([
  "PATH",
  "BASH_ENV",
  "ENV",
  "SHELL",
  "SHELLOPTS",
  "BASHOPTS",
  "HOME",
  "IFS",
  "CDPATH",
  "PS4",
  "PROMPT_COMMAND",
  "ZDOTDIR",
  "INPUTRC",
  "EDITOR",
  "VISUAL",
  "PAGER",
  "MANPAGER",
  "BROWSER",
  "LESSOPEN",
  "LESSCLOSE",
  "TMPDIR",
  "TMP",
  "TEMP",
  "TERMINFO",
  "GCONV_PATH",
  "HOSTALIASES",
  "RESOLV_HOST_CONF",
  "LOCALDOMAIN",
  "SSL_CERT_FILE",
  "SSL_CERT_DIR",
  "CURL_CA_BUNDLE",
  "REQUESTS_CA_BUNDLE",
  "SUDO_ASKPASS",
  "JAVA_TOOL_OPTIONS",
  "_JAVA_OPTIONS",
  "JDK_JAVA_OPTIONS",
  "CLASSPATH",
  "MAVEN_OPTS",
  "GRADLE_OPTS",
  "KUBECONFIG",
  "CC",
  "CXX",
  "MAKEFLAGS",
  "RUSTC_WRAPPER",
  "RUSTFLAGS",
  "LUA_INIT",
  "GOFLAGS",
  "GOPROXY",
  "GOPATH",
  "GOROOT",
  "GOENV",
  "GOTOOLCHAIN",
  "GOINSECURE",
  "GOPRIVATE",
  "GONOPROXY",
  "GONOSUMDB",
  "GOSUMDB",
]);

const PREFIXES = [
  "OMP_",
  "BASH_",
  "GIT_",
  "LD_",
  "DYLD_",
  "NODE_",
  "NPM_CONFIG_",
  "YARN_",
  "PNPM_",
  "COREPACK_",
  "BUN_",
  "DENO_",
  "PIP_",
  "UV_",
  "CONDA_",
  "PYTHON",
  "PERL5",
  "PERL_",
  "RUBY",
  "GEM_",
  "BUNDLE_",
  "CARGO_",
  "XDG_",
  "SSH_",
  "DOCKER_",
  "AWS_",
  "AZURE_",
  "GOOGLE_",
  // Each provider's family (ANTHROPIC_, OPENAI_, ...): its key, base URL and the like.
  ...new Set(PROVIDERS.flatMap((provider) => provider.keyEnv.map((name) => name.replace(/API_KEY$/, "")).filter((prefix) => prefix.endsWith("_")))),
];

const SUFFIXES = ["_PROXY", "_BASE_URL", "_API_BASE", "_ENDPOINT"];

/** Common members of a refused family that only say which mode a project's own code runs in. */
const HARMLESS = new Set(["NODE_ENV", "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING"]);

const PROVIDER_NAMES = new Set(PROVIDERS.flatMap((provider) => [...provider.keyEnv, ...provider.baseUrlEnv]));

/** Whether a project `.env` in an untrusted folder must not set `name`. */
export function unsafeForUntrustedProject(name: string): boolean {
  const upper = name.toUpperCase();
  if (HARMLESS.has(upper)) return false;
  if (EXACT.has(upper) || PROVIDER_NAMES.has(name)) return true;
  return PREFIXES.some((prefix) => upper.startsWith(prefix)) || SUFFIXES.some((suffix) => upper.endsWith(suffix));
}
