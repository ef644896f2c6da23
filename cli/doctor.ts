import { Database } from "bun:sqlite";
import { type NativesReport, NativesLoadError, loadNatives } from "../embed/load.ts";
import { getEmbeddedNatives } from "../embed/payload.ts";
import { VERSION } from "../core/version.ts";
import { writeStdout } from "./write.ts";

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
}

function collect(): DoctorReport {
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
  };
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
  for (const note of natives.notes) rows.push(["note", note]);
  for (const path of natives.pruned) rows.push(["pruned", path]);
  const width = Math.max(...rows.map(([key]) => key.length));
  const lines = rows.map(([key, value]) => `${key.padEnd(width)}  ${value}`);
  if (report.nativesError) lines.push("", report.nativesError);
  return `${lines.join("\n")}\n`;
}

export async function runDoctor(options: { json?: boolean }): Promise<number> {
  const report = collect();
  await writeStdout(options.json ? `${JSON.stringify(report, null, 2)}\n` : render(report));
  return report.nativesError ? 1 : 0;
}
