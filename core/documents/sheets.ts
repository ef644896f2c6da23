import { ArchiveError } from "../archives/archive-error.ts";
import { zipMembers } from "../archives/zip.ts";
import { decodeXml } from "./xml-text.ts";

/** Cells in a Markdown table: pipes and line breaks would break its rows. */
function cell(value: string): string {
  return value.replace(/\|/g, "\\|").replace(/\r?\n/g, "<br>");
}

export function markdownTable(rows: string[][]): string {
  const width = Math.max(1, ...rows.map((row) => row.length));
  const pad = (row: string[]) => Array.from({ length: width }, (_, i) => cell(row[i] ?? ""));
  const [header = [], ...body] = rows;
  return [pad(header), Array(width).fill("---"), ...body.map(pad)].map((row) => `| ${row.join(" | ")} |`).join("\n");
}

/** RFC 4180 CSV (quoted fields, doubled quotes, CRLF); a tab-separated file when `separator` is a tab. */
export function parseCsv(text: string, separator = ","): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"' && field === "") quoted = true;
    else if (char === separator) {
      row.push(field);
      field = "";
    } else if (char === "\n" || char === "\r") {
      if (char === "\r" && text[i + 1] === "\n") i++;
      row.push(field);
      rows.push(row);
      row = [];
      field = "";
    } else field += char;
  }
  if (field !== "" || row.length > 0) {
    row.push(field);
    rows.push(row);
  }
  return rows;
}

export function csvMarkdown(text: string, tabs: boolean): string {
  const rows = parseCsv(text.replace(/^\uFEFF/, ""), tabs ? "\t" : ",");
  return rows.length === 0 ? "(empty table)" : markdownTable(rows);
}

/** Rows shown per sheet; the rest are counted, and the note says how to get at them. */
const MAX_SHEET_ROWS = 10_000;

/**
 * A workbook, each sheet as a Markdown table under its name. Read straight from its XML parts:
 * exceljs took 0.9 s to import and 2.7 s to load a 6 KB workbook here, for a job that needs
 * none of its formatting or writing.
 */
export async function xlsxMarkdown(bytes: Uint8Array, name: string): Promise<string> {
  const zip = await zipMembers(bytes, name);
  const text = async (member: string) => {
    const data = await zip.read(member);
    return data ? new TextDecoder().decode(data) : undefined;
  };
  const workbook = await text("xl/workbook.xml");
  if (!workbook) throw new ArchiveError("corrupt", `${name} is not a readable Excel (.xlsx) workbook (no xl/workbook.xml).`);
  const rels = (await text("xl/_rels/workbook.xml.rels")) ?? "";
  const targets = new Map<string, string>();
  for (const rel of rels.matchAll(/<Relationship\b[^>]*>/g)) {
    const id = /\bId="([^"]+)"/.exec(rel[0])?.[1];
    const target = /\bTarget="([^"]+)"/.exec(rel[0])?.[1];
    if (id && target) targets.set(id, target.startsWith("/") ? target.slice(1) : `xl/${target}`);
  }
  const shared = [...((await text("xl/sharedStrings.xml")) ?? "").matchAll(/<si>([\s\S]*?)<\/si>/g)].map((si) => runsText(si[1]!));
  const sections: string[] = [];
  for (const sheet of workbook.matchAll(/<sheet\b[^>]*>/g)) {
    const sheetName = decodeXml(/\bname="([^"]*)"/.exec(sheet[0])?.[1] ?? "?");
    const id = /\br:id="([^"]+)"/.exec(sheet[0])?.[1];
    const xml = id && targets.has(id) ? await text(targets.get(id)!) : undefined;
    if (!xml) continue;
    const rows: string[][] = [];
    let more = 0;
    for (const row of xml.matchAll(/<row\b[^>]*?(?:\/>|>([\s\S]*?)<\/row>)/g)) {
      if (rows.length >= MAX_SHEET_ROWS) {
        more++;
        continue;
      }
      const number = Number(/\br="(\d+)"/.exec(row[0])?.[1] ?? rows.length + 1);
      while (rows.length < number - 1 && rows.length < MAX_SHEET_ROWS) rows.push([]);
      const values: string[] = [];
      for (const c of (row[1] ?? "").matchAll(/<c\b([^>]*?)(?:\/>|>([\s\S]*?)<\/c>)/g)) {
        const column = columnIndex(/\br="([A-Z]+)/.exec(c[1]!)?.[1]) ?? values.length;
        values[column] = cellValue(/\bt="(\w+)"/.exec(c[1]!)?.[1], c[2] ?? "", shared);
      }
      rows.push(Array.from(values, (value) => value ?? ""));
    }
    let section = `## Sheet: ${sheetName}\n\n${rows.length === 0 ? "(empty sheet)" : markdownTable(rows)}`;
    if (more > 0) section += `\n\n[${more} more rows not shown; export the sheet to CSV (e.g. with LibreOffice in bash) and read it in parts.]`;
    sections.push(section);
  }
  return sections.join("\n\n");
}

function runsText(xml: string): string {
  return [...xml.matchAll(/<t\b[^>]*>([\s\S]*?)<\/t>/g)].map((t) => decodeXml(t[1]!)).join("");
}

function columnIndex(letters: string | undefined): number | undefined {
  if (!letters) return undefined;
  let index = 0;
  for (const letter of letters) index = index * 26 + (letter.charCodeAt(0) - 64);
  return index - 1;
}

function cellValue(type: string | undefined, inner: string, shared: string[]): string {
  if (type === "inlineStr") return runsText(inner);
  const value = /<v>([\s\S]*?)<\/v>/.exec(inner)?.[1];
  if (value === undefined) return "";
  if (type === "s") return shared[Number(value)] ?? "";
  if (type === "b") return value === "1" ? "TRUE" : "FALSE";
  return decodeXml(value);
}
