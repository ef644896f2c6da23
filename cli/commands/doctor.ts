import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { displayPath } from "../../core/paths.ts";
import { type NativesReport, NativesLoadError, loadNatives } from "../../core/natives/load.ts";
import { getEmbeddedNatives } from "../../core/natives/payload.ts";
import type { RepairReport } from "../../core/natives/repair.ts";
import { containmentMechanism } from "../../core/shell/containment.ts";
import { VERSION } from "../../core/version.ts";
import { describeSupport, sandboxSupport, type SandboxSupport } from "../../core/sandbox/launcher-status.ts";
import { writeStdout } from "../shared/write.ts";

function sqliteVersion(): string {
  try {
    const db = new Database(":memory:");
    const row = db.query("select sqlite_version() as version").get() as { version: string };
    db.close();
    return row.version;
  } catch (error) {
    return `unavailable (${(error as Error).message})`;
  }
}

interface DoctorReport {
  version: string;
  executable: string;
  platform: string;
  bun: string;
  natives: NativesReport;
  nativesError: string | null;
  sqlite: string;
  /** How omp makes sure the commands it runs end with their call, job or omp itself. */
  containment: string;
  /** How the model's commands are confined on this machine (core/sandbox). */
  sandbox: SandboxSupport;
  /** Language servers configured for the working directory and whether each is installed. */
  lsp: { servers: { name: string; fileTypes: string[]; source: string; command?: string; install?: string }[]; warnings: string[]; skipped: string[] } | { error: string };
  /** The credential vault: who wrote its schema and what omp takes from it. */
  credentials: CredentialsReport;
  /** The eval tool's runtimes: the Python it would start for this directory, and JavaScript (omp's own Bun). */
  eval: { python: { path: string; version: string } | { missing: string }; js: string };
  /** Present with --repair: what was checked and mended before the load. */
  repair?: RepairReport;
}

async function lspReport(): Promise<DoctorReport["lsp"]> {
  try {
    const [{ lspOverview }, { loadSettings }] = await Promise.all([import("../../core/lsp/overview.ts"), import("../../core/config/settings.ts")]);
    return lspOverview(process.cwd(), loadSettings({ cwd: process.cwd() }).settings.lsp.servers);
  } catch (error) {
    return { error: (error as Error).message };
  }
}

type CredentialsReport =
  | { path: string; state: "absent" }
  | { path: string; state: "open"; owner: string; version: number; readOnly: boolean; reads: { provider: string; type: string; count: number }[] }
  | { path: string; state: "unusable"; error: string };

/** Opens the vault the way a run does, without creating it. */
async function credentialsReport(): Promise<CredentialsReport> {
  const { agentDbPath } = await import("../../core/paths.ts");
  const path = agentDbPath();
  if (!existsSync(path)) return { path, state: "absent" };
  const { CredentialStore, CredentialStoreError } = await import("../../core/auth/store.ts");
  try {
    const store = CredentialStore.open(path);
    try {
      const counts = new Map<string, number>();
      for (const row of store.active()) {
        const key = `${row.provider}\u0000${row.credential.type}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
      }
      const reads = [...counts].map(([key, count]) => {
        const [provider, type] = key.split("\u0000") as [string, string];
        return { provider, type, count };
      });
      return { path, state: "open", owner: store.schema.owner, version: store.schema.version, readOnly: store.schema.readOnly, reads };
    } finally {
      store.close();
    }
  } catch (error) {
    if (!(error instanceof CredentialStoreError)) throw error;
    return { path, state: "unusable", error: error.message };
  }
}

function describeCredentials(report: CredentialsReport): string {
  const path = displayPath(report.path);
  if (report.state === "absent") return `${path}: none yet (omp auth login stores one)`;
  if (report.state === "unusable") return report.error;
  const reads = report.reads.map(({ provider, type, count }) => `${provider} ${count === 1 ? "" : `${count}× `}${type === "oauth" ? "login" : "API key"}`).join(", ") || "no active credentials";
  return `${path}: schema ${report.version} of ${report.owner}${report.readOnly ? ", read only" : ""}; reads ${reads}`;
}

async function collect(repair?: RepairReport): Promise<DoctorReport> {
  let natives: NativesReport;
  let nativesError: string | null = null;
  try {
    natives = loadNatives().report;
  } catch (error) {
    if (!(error instanceof NativesLoadError)) throw error;
    natives = error.report;
    nativesError = error.message;
  }
  return {
    version: VERSION,
    executable: process.execPath,
    platform: `${process.platform}-${process.arch}`,
    bun: Bun.version,
    natives,
    nativesError,
    sqlite: sqliteVersion(),
    containment: describeContainment(),
    sandbox: sandboxSupport(),
    lsp: await lspReport(),
    credentials: await credentialsReport(),
    eval: await evalReport(),
    ...(repair ? { repair } : {}),
  };
}

async function evalReport(): Promise<DoctorReport["eval"]> {
  const { pythonInterpreter } = await import("../../core/eval/kernel.ts");
  const js = `JavaScript cells in omp's own Bun ${Bun.version}`;
  const path = pythonInterpreter(process.cwd());
  const missing = { missing: "no python3 on PATH: Python cells are unavailable (omp setup python installs it)" };
  if (!path) return { python: missing, js };
  const probe = Bun.spawnSync([path, "-c", "import sys; print('%d.%d.%d' % sys.version_info[:3]); sys.exit(sys.version_info < (3, 8))"], { stdout: "pipe", stderr: "ignore" });
  const version = probe.stdout.toString().trim();
  if (probe.exitCode !== 0) return { python: { missing: `${path} ${version || "does not run"}: Python cells need 3.8 or newer (omp setup python)` }, js };
  return { python: { path, version }, js };
}

function describeContainment(): string {
  const { mechanism, where, parentDeathSignal } = containmentMechanism();
  const death = parentDeathSignal ? "; each command's shell dies with omp (setpriv --pdeathsig)" : "";
  return mechanism === "cgroup"
    ? `cgroup v2 per command under ${where} (cgroup.kill ends everything it started)${death}`
    : `process tags (no writable cgroup v2): commands carry OMP_JOB in their environment; what a killed omp left is ended at the next start${death}`;
}

function repairRows(repair: RepairReport): [string, string][] {
  return [
    ...repair.verified.map((path): [string, string] => ["verified", path]),
    ...repair.replaced.map(({ path, reason }): [string, string] => ["replaced", `${path}: ${reason}`]),
    ...repair.removed.map((path): [string, string] => ["removed", path]),
    ...repair.skipped.map(({ path, reason }): [string, string] => ["skipped", `${path}: ${reason}`]),
  ];
}

function render(report: DoctorReport): string {
  const { natives } = report;
  const rows: [string, string][] = [
    ["omp", report.version],
    ["executable", `${report.executable}${getEmbeddedNatives() ? "" : " (running from source)"}`],
    ["platform", `${report.platform}, bun ${report.bun}`],
    ["variant", `${natives.variant ?? "none loaded"} (${natives.variantReason})`],
  ];
  if (natives.mode === "embedded") {
    const configured = natives.configuredRoot ? `${natives.configuredRoot.path} (from ${natives.configuredRoot.source})` : "none usable";
    rows.push(["cache dir", configured]);
    if (natives.usedRoot && natives.usedRoot !== natives.configuredRoot) {
      rows.push(["fallback", `${natives.usedRoot.path} (${natives.usedRoot.source})`]);
    }
  }
  rows.push(["cache", natives.state]);
  rows.push(["addon", natives.addonPath ?? "not loaded"]);
  rows.push(["load time", `${natives.loadMs.toFixed(1)} ms`]);
  rows.push(["sqlite", report.sqlite]);
  rows.push(["containment", report.containment]);
  rows.push(["sandbox", describeSupport(report.sandbox)]);
  rows.push(["credentials", describeCredentials(report.credentials)]);
  const python = report.eval.python;
  rows.push(["eval", `${"missing" in python ? python.missing : `Python cells in ${python.path} (${python.version})`}; ${report.eval.js}`]);
  for (const note of natives.notes) rows.push(["note", note]);
  for (const path of natives.pruned) rows.push(["pruned", path]);
  if (report.repair) rows.push(...repairRows(report.repair));
  const width = Math.max(...rows.map(([key]) => key.length));
  const lines = rows.map(([key, value]) => `${key.padEnd(width)}  ${value}`);
  if (report.nativesError) lines.push("", report.nativesError);
  return `${lines.join("\n")}\n`;
}

/**
 * `omp doctor`. With --repair the cached addons are checked by sha256 and mended before the load,
 * since loading a damaged one may crash the process before it can report anything.
 */
export async function runDoctor(options: { json?: boolean; repair?: boolean }): Promise<number> {
  const embedded = getEmbeddedNatives();
  const repair = options.repair && embedded ? (await import("../../core/natives/repair.ts")).repairNatives(embedded) : undefined;
  const report = await collect(repair);
  const lspLines = "error" in report.lsp ? [`lsp config: ${report.lsp.error}`] : (await import("../../core/lsp/overview.ts")).overviewLines(report.lsp).map((line) => `lsp  ${line}`);
  await writeStdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : `${render(report)}${lspLines.join("\n")}\n`);
  return report.nativesError ? 1 : 0;
}
