/**
 * Why a `?q=` query is refused, or undefined when it only reads. bun:sqlite has no authorizer, and
 * a read-only connection with `query_only` still runs `VACUUM INTO '/any/path'` (it writes a new
 * file) and `ATTACH` (it opens any other database, omp's vault included), so the statement is
 * checked here: one statement, starting as a read does, with none of the words that reach beyond
 * the file. Strings, quoted names and comments are blanked first, so a value cannot trip it.
 */
const READS = new Set(["select", "with", "values", "explain", "pragma"]);
const BEYOND = /\b(attach|detach|vacuum|load_extension|reindex|analyze)\b/i;
/** Pragmas that only report; the others can change the connection or the file. */
const READ_PRAGMAS = new Set(
  "table_info table_xinfo table_list index_list index_info index_xinfo foreign_key_list foreign_key_check integrity_check quick_check database_list collation_list function_list module_list pragma_list compile_options encoding page_count page_size freelist_count user_version application_id schema_version data_version journal_mode".split(" "),
);

function blanked(query: string): string {
  return query.replace(/'(?:[^']|'')*'?|"(?:[^"]|"")*"?|`[^`]*`?|\[[^\]]*\]?|--[^\n]*|\/\*[\s\S]*?(?:\*\/|$)/g, (match) => (match.startsWith("-") || match.startsWith("/") ? " " : "''"));
}

export function refusedStatement(query: string): string | undefined {
  const code = blanked(query).trim().replace(/;\s*$/, "");
  if (code.includes(";")) return "it holds more than one statement; run one query at a time";
  const first = /^[a-z_]+/i.exec(code)?.[0]?.toLowerCase() ?? "";
  if (!READS.has(first)) return `${first ? first.toUpperCase() : "it"} is not a read; only SELECT, WITH, VALUES, EXPLAIN and reporting PRAGMAs run here`;
  const beyond = BEYOND.exec(code);
  if (beyond) return `${beyond[1]!.toUpperCase()} reaches beyond reading this file (other files, a new file, native code)`;
  if (first === "pragma") {
    const pragma = /^pragma\s+(?:[a-z_]+\s*\.\s*)?([a-z_]+)\s*(=)?/i.exec(code);
    if (!pragma || pragma[2] || !READ_PRAGMAS.has(pragma[1]!.toLowerCase())) return "only reporting PRAGMAs run here (table_info, index_list, integrity_check, …), never one that sets something";
  }
  return undefined;
}
