/**
 * The INI dialect of ~/.aws/credentials and ~/.aws/config: `[section]` headers, `key = value`
 * lines, `#`/`;` comments, and indented continuation lines that open a sub-section (`s3 =`
 * followed by `  max_concurrent_requests = 10`), which are skipped: no credential lives there.
 */
export function parseIni(text: string): Map<string, Record<string, string>> {
  const sections = new Map<string, Record<string, string>>();
  let current: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    if (/^\s/.test(raw) && raw.trim() !== "") continue;
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      current = sections.get(header[1]!) ?? {};
      sections.set(header[1]!, current);
      continue;
    }
    const eq = line.indexOf("=");
    if (eq <= 0 || !current) continue;
    current[line.slice(0, eq).trim().toLowerCase()] = line.slice(eq + 1).trim();
  }
  return sections;
}
