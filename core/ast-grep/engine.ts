import type { SgNode, SgRoot } from "@ast-grep/napi";
import { extraFilePath } from "../natives/extras.ts";
import { OmpError, describeError } from "../errors/omp-error.ts";

type Napi = typeof import("@ast-grep/napi");

/** Languages by file extension: ast-grep's built-in ones by their Lang name, the dynamic ones by ours. */
const BY_EXTENSION: Record<string, string> = {
  ".ts": "TypeScript", ".mts": "TypeScript", ".cts": "TypeScript", ".tsx": "Tsx",
  ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript", ".jsx": "JavaScript",
  ".html": "Html", ".htm": "Html", ".css": "Css",
  ".py": "python", ".pyi": "python", ".go": "go", ".rs": "rust",
};

/** The tree-sitter grammars omp carries beyond ast-grep's built-in ones (from @ast-grep/lang-*). */
const DYNAMIC: Record<string, string[]> = { python: ["py", "pyi"], go: ["go"], rust: ["rs"] };

export const SUPPORTED = "TypeScript, TSX, JavaScript, Python, Go, Rust, HTML, CSS";

export function languageOf(path: string): string | undefined {
  const dot = path.lastIndexOf(".");
  return dot === -1 ? undefined : BY_EXTENSION[path.slice(dot).toLowerCase()];
}

let engine: Napi | undefined;

/**
 * ast-grep's N-API addon, loaded from the copy the binary carries (core/natives/extras.ts) and given the
 * Python, Go and Rust grammars once. Throws OmpError saying what is wrong when it cannot load.
 */
export function astGrep(): Napi {
  if (engine) return engine;
  try {
    const module = { exports: {} as Napi };
    process.dlopen(module, extraFilePath("ast-grep-napi.node"));
    const napi = module.exports;
    napi.registerDynamicLanguage(
      Object.fromEntries(
        Object.entries(DYNAMIC).map(([lang, extensions]) => [lang, { libraryPath: extraFilePath(`tree-sitter-${lang}.so`), extensions, languageSymbol: `tree_sitter_${lang}`, expandoChar: "µ" }]),
      ),
    );
    engine = napi;
    return napi;
  } catch (error) {
    throw new OmpError(`ast-grep could not be loaded: ${describeError(error)}`);
  }
}

export interface Match {
  line: number;
  column: number;
  text: string;
  node: SgNode;
}

/** Metavariable names in a pattern: `$A`, `$$$ARGS`, `$_`. */
function metavariables(pattern: string): { single: string[]; multi: string[] } {
  const multi = [...pattern.matchAll(/\$\$\$([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!);
  const single = [...pattern.replace(/\$\$\$[A-Z_][A-Z0-9_]*/g, "").matchAll(/\$([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!);
  return { single: [...new Set(single)], multi: [...new Set(multi)] };
}

type Matcher = string | { rule: { pattern: { context: string; selector: string } } };

/**
 * What findAll is given for `pattern`. A Go snippet outside a function is ambiguous
 * (`fmt.Println(x)` parses as a type conversion there), so Go statements and expressions are
 * matched in the context of a function body, selecting the node kind the pattern parses to there.
 */
function matcherFor(napi: Napi, lang: string, pattern: string): Matcher {
  if (lang !== "go" || /^\s*(func|type|var|const|import|package)\b/.test(pattern)) return pattern;
  const context = `func _() {\n${pattern}\n}`;
  let statement = napi.parse("go", context.replaceAll("$", "µ")).root().find({ rule: { kind: "block" } });
  while (statement && (statement.kind() === "block" || statement.kind() === "statement_list")) statement = statement.children().find((node) => node.isNamed()) ?? null;
  if (!statement) return pattern;
  const inner = statement.kind() === "expression_statement" ? statement.children().find((node) => node.isNamed()) : statement;
  return { rule: { pattern: { context, selector: String(inner?.kind() ?? statement.kind()) } } };
}

/** The matches of `pattern` in `source`; a pattern that does not parse in `lang` throws OmpError. */
export function findMatches(lang: string, source: string, pattern: string): { root: SgRoot; matches: Match[] } {
  const napi = astGrep();
  const root = napi.parse(lang as Parameters<Napi["parse"]>[0], source);
  let nodes: SgNode[];
  try {
    nodes = root.root().findAll(matcherFor(napi, lang, pattern) as string);
  } catch (error) {
    throw new OmpError(`the pattern is not valid ${lang}: ${describeError(error)}. A pattern is code of the file's language with $NAME for one node and $$$NAME for several.`);
  }
  return { root, matches: nodes.map((node) => ({ line: node.range().start.line + 1, column: node.range().start.column + 1, text: node.text(), node })) };
}

/** `rewrite` with each $NAME / $$$NAME replaced by what it matched in `match` (as the source spells it). */
export function substitute(rewrite: string, pattern: string, match: SgNode, source: string): string {
  const { single, multi } = metavariables(pattern);
  let result = rewrite;
  for (const name of multi) {
    const nodes = match.getMultipleMatches(name);
    const text = nodes.length === 0 ? "" : source.slice(nodes[0]!.range().start.index, nodes.at(-1)!.range().end.index);
    result = result.replaceAll(`$$$${name}`, text);
  }
  // Longest names first, so $AB is not taken for $A followed by B.
  for (const name of [...single].sort((a, b) => b.length - a.length)) {
    const node = match.getMatch(name);
    if (node) result = result.replace(new RegExp(`\\$${name}(?![A-Z0-9_])`, "g"), () => node.text());
  }
  return result;
}

/** `source` with every match of `pattern` rewritten; the count of replacements. */
export function rewriteSource(lang: string, source: string, pattern: string, rewrite: string): { text: string; count: number } {
  const { root, matches } = findMatches(lang, source, pattern);
  if (matches.length === 0) return { text: source, count: 0 };
  // findAll also returns matches nested in other matches; rewriting both would garble the text.
  let end = -1;
  const outermost = matches.filter((match) => {
    const range = match.node.range();
    if (range.start.index < end) return false;
    end = range.end.index;
    return true;
  });
  const edits = outermost.map((match) => match.node.replace(keepTerminator(match.text, pattern, substitute(rewrite, pattern, match.node, source))));
  return { text: root.root().commitEdits(edits), count: outermost.length };
}

/**
 * A statement's `;` belongs to the node even when the pattern leaves it out (`const $A = $B`
 * matches `const x = 1;`), so a rewrite written like the pattern keeps the `;` the match had.
 */
function keepTerminator(matched: string, pattern: string, replacement: string): string {
  const ends = (text: string) => text.trimEnd().endsWith(";");
  return ends(matched) && !ends(pattern) && !ends(replacement) ? `${replacement};` : replacement;
}
