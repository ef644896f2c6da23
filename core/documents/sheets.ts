import { ArchiveError } from "../archives/archive-error.ts";

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

/** A workbook (exceljs), each sheet as a Markdown table under its name. */
export async function xlsxMarkdown(bytes: Uint8Array, name: string): Promise<string> {
  const { default: ExcelJS } = await import("exceljs");
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(Buffer.from(bytes) as never);
  } catch (error) {
    throw new ArchiveError("corrupt", `${name} is not a readable Excel (.xlsx) workbook (${(error as Error).message}).`, { cause: error });
  }
  const sections: string[] = [];
  workbook.eachSheet((sheet) => {
    const rows: string[][] = [];
    sheet.eachRow({ includeEmpty: true }, (row) => {
      const values: string[] = [];
      for (let column = 1; column <= sheet.actualColumnCount || column <= row.cellCount; column++) values.push(row.getCell(column).text ?? "");
      rows.push(values);
    });
    sections.push(`## Sheet: ${sheet.name}\n\n${rows.length === 0 ? "(empty sheet)" : markdownTable(rows)}`);
  });
  return sections.join("\n\n");
}
