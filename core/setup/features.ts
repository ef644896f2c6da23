import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * What `omp setup` knows how to bring: the optional programs omp's features use, how to tell
 * whether each is there, and the commands that install it on each kind of machine. omp never
 * downloads them itself: it runs (after asking) the machine's own package manager, or says what
 * to run, which is also the way on an air-gapped server with a local mirror.
 */

export type Platform = "debian" | "ubuntu" | "macos" | "other";

export interface Feature {
  id: string;
  /** What it enables in omp. */
  enables: string;
  /** Commands that must be on PATH, or a probe command that must exit 0. */
  check: { commands: string[] } | { probe: string[]; describe: string };
  /** Install commands per platform (each a shell line); absent: say so and how to do it by hand. */
  install: Partial<Record<Platform, string[]>>;
  /** Said when there is no recipe for the platform. */
  manual: string;
}

const APT = (packages: string) => `apt-get install -y --no-install-recommends ${packages}`;
const NPM = (packages: string) => `npm install -g ${packages}`;

export const FEATURES: readonly Feature[] = [
  {
    id: "typescript",
    enables: "diagnostics and the lsp tool for TypeScript and JavaScript (typescript-language-server)",
    check: { commands: ["typescript-language-server", "tsc"] },
    install: { debian: [APT("nodejs npm"), NPM("typescript typescript-language-server")], ubuntu: [APT("nodejs npm"), NPM("typescript typescript-language-server")], macos: ["brew install node", NPM("typescript typescript-language-server")] },
    manual: "install Node.js, then: npm install -g typescript typescript-language-server",
  },
  {
    id: "pyright",
    enables: "diagnostics and the lsp tool for Python (pyright)",
    check: { commands: ["pyright-langserver"] },
    install: { debian: [APT("nodejs npm"), NPM("pyright")], ubuntu: [APT("nodejs npm"), NPM("pyright")], macos: ["brew install node", NPM("pyright")] },
    manual: "install Node.js, then: npm install -g pyright",
  },
  {
    id: "clangd",
    enables: "diagnostics and the lsp tool for C and C++ (clangd)",
    check: { commands: ["clangd"] },
    install: { debian: [APT("clangd")], ubuntu: [APT("clangd")], macos: ["xcode-select --install"] },
    manual: "install clangd from your distribution or LLVM's releases",
  },
  {
    id: "python",
    enables: "Python cells of the eval tool (python3 3.8 or newer; omp brings its own kernel)",
    check: { probe: ["python3", "-c", "import sys; sys.exit(sys.version_info < (3, 8))"], describe: "python3 3.8 or newer" },
    install: { debian: [APT("python3")], ubuntu: [APT("python3")], macos: ["brew install python"] },
    manual: "install Python 3.8 or newer and put python3 on PATH",
  },
  {
    id: "browser",
    enables: "a headless browser for pages that need JavaScript, and for viewing omp stats --html (Chromium)",
    check: { commands: ["chromium|chromium-browser|google-chrome"] },
    install: { debian: [APT("chromium")], ubuntu: [APT("chromium-browser")], macos: ["brew install --cask chromium"] },
    manual: "install Chromium or Google Chrome and put it on PATH",
  },
];

export function featureById(id: string): Feature | undefined {
  return FEATURES.find((feature) => feature.id === id);
}

/** The machine's kind, from /etc/os-release (ID, then ID_LIKE) or the OS. */
export function detectPlatform(osRelease = "/etc/os-release"): Platform {
  if (process.platform === "darwin") return "macos";
  if (process.platform !== "linux") return "other";
  let text: string;
  try {
    text = readFileSync(osRelease, "utf8");
  } catch {
    return "other";
  }
  const field = (name: string) => new RegExp(`^${name}="?([^"\\n]*)"?$`, "m").exec(text)?.[1]?.toLowerCase() ?? "";
  const ids = [field("ID"), ...field("ID_LIKE").split(/\s+/)];
  if (ids.includes("ubuntu")) return "ubuntu";
  if (ids.includes("debian")) return "debian";
  return "other";
}

/** On PATH, or in the project's node_modules/.bin, where omp looks for language servers too. */
function onPath(command: string, cwd: string): boolean {
  const path = `${process.env.PATH ?? ""}:${join(cwd, "node_modules", ".bin")}`;
  return command.split("|").some((name) => Bun.which(name, { PATH: path }) !== null);
}

export interface FeatureStatus {
  id: string;
  enables: string;
  installed: boolean;
  /** What is missing, in words. */
  missing: string[];
  /** What `omp setup <id>` would run here; empty when it cannot say. */
  commands: string[];
  manual: string;
}

/** Whether `feature` is there, and what would install it on `platform`. */
export function featureStatus(feature: Feature, platform: Platform, root: boolean, cwd: string = process.cwd()): FeatureStatus {
  let missing: string[];
  if ("commands" in feature.check) missing = feature.check.commands.filter((command) => !onPath(command, cwd)).map((command) => command.replaceAll("|", " or "));
  else {
    let ok = false;
    try {
      ok = Bun.spawnSync(feature.check.probe, { stdout: "ignore", stderr: "ignore", timeout: 20_000 }).exitCode === 0;
    } catch {
      ok = false;
    }
    missing = ok ? [] : [feature.check.describe];
  }
  const recipe = feature.install[platform] ?? [];
  // Package installs need root on Linux: sudo when omp is not root.
  const commands = recipe.map((line) => (platform !== "macos" && !root && /^(apt-get|npm install -g)/.test(line) ? `sudo ${line}` : line));
  return { id: feature.id, enables: feature.enables, installed: missing.length === 0, missing, commands, manual: feature.manual };
}
