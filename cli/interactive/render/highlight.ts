import { type Span, appendSpan } from "./text.ts";
import type { Theme } from "./theme.ts";

/**
 * Syntax colours for fenced code: a small lexer per language family (comments, strings, numbers,
 * keywords, types, calls). It colours the common cases of the languages models write most; it is
 * not a parser, and anything it does not know stays plain.
 */

interface Language {
  keywords: ReadonlySet<string>;
  constants?: ReadonlySet<string>;
  lineComments: string[];
  blockComment?: [string, string];
  quotes: string[];
  /** Quotes whose strings may span lines. */
  multiline?: string[];
  /** `$NAME` expansions (shells). */
  variables?: boolean;
  /** `#` comments only at a word start (shells), so `a#b` stays a word. */
  hashNeedsSpace?: boolean;
}

const words = (text: string) => new Set(text.split(/\s+/).filter(Boolean));

const C_LIKE_CONSTANTS = words("true false null nullptr NULL nil None True False undefined this self super");

const JS: Language = {
  keywords: words(
    "async await break case catch class const continue debugger default delete do else enum export extends finally for from function get if implements import in instanceof interface let new of private protected public readonly return set static switch throw try type typeof var void while with yield as satisfies declare namespace abstract keyof",
  ),
  constants: C_LIKE_CONSTANTS,
  lineComments: ["//"],
  blockComment: ["/*", "*/"],
  quotes: ['"', "'", "`"],
  multiline: ["`"],
};

const PYTHON: Language = {
  keywords: words("and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield match case print"),
  constants: words("True False None self cls"),
  lineComments: ["#"],
  quotes: ['"""', "'''", '"', "'"],
  multiline: ['"""', "'''"],
};

const RUST: Language = {
  keywords: words(
    "as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return static struct trait type unsafe use where while macro_rules",
  ),
  constants: words("true false self Self None Some Ok Err"),
  lineComments: ["//"],
  blockComment: ["/*", "*/"],
  quotes: ['"'],
};

const GO: Language = {
  keywords: words("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var"),
  constants: words("true false nil iota"),
  lineComments: ["//"],
  blockComment: ["/*", "*/"],
  quotes: ['"', "'", "`"],
  multiline: ["`"],
};

const C: Language = {
  keywords: words(
    "auto break case catch char class const continue default delete do double else enum extern final float for friend goto if inline int long namespace new operator override private protected public register return short signed sizeof static struct switch template throw try typedef typename union unsigned using virtual void volatile while bool import package extends implements interface fun val var when object data func let guard struct protocol extension",
  ),
  constants: C_LIKE_CONSTANTS,
  lineComments: ["//"],
  blockComment: ["/*", "*/"],
  quotes: ['"', "'"],
};

const SHELL: Language = {
  keywords: words("if then else elif fi for while until do done case esac in function return local export readonly declare set unset source alias cd echo exit"),
  lineComments: ["#"],
  quotes: ['"', "'"],
  variables: true,
  hashNeedsSpace: true,
};

const JSON_LANG: Language = { keywords: new Set(), constants: words("true false null"), lineComments: [], quotes: ['"'] };
const YAML: Language = { keywords: new Set(), constants: words("true false null yes no on off"), lineComments: ["#"], quotes: ['"', "'"], hashNeedsSpace: true };
const SQL: Language = {
  keywords: words(
    "select from where and or not insert into values update set delete create table drop alter index join left right inner outer on group by order having limit offset as distinct union all primary key foreign references null is in like between case when then else end SELECT FROM WHERE AND OR NOT INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE DROP ALTER INDEX JOIN LEFT RIGHT INNER OUTER ON GROUP BY ORDER HAVING LIMIT OFFSET AS DISTINCT UNION ALL PRIMARY KEY FOREIGN REFERENCES NULL IS IN LIKE BETWEEN CASE WHEN THEN ELSE END",
  ),
  lineComments: ["--"],
  blockComment: ["/*", "*/"],
  quotes: ["'", '"'],
};
const TOML: Language = { keywords: new Set(), constants: words("true false"), lineComments: ["#"], quotes: ['"""', '"', "'"], multiline: ['"""'] };

const LANGUAGES: Record<string, Language> = {
  js: JS,
  javascript: JS,
  jsx: JS,
  mjs: JS,
  cjs: JS,
  ts: JS,
  typescript: JS,
  tsx: JS,
  py: PYTHON,
  python: PYTHON,
  rs: RUST,
  rust: RUST,
  go: GO,
  golang: GO,
  c: C,
  h: C,
  cpp: C,
  "c++": C,
  cc: C,
  hpp: C,
  java: C,
  kotlin: C,
  kt: C,
  swift: C,
  cs: C,
  csharp: C,
  sh: SHELL,
  bash: SHELL,
  shell: SHELL,
  zsh: SHELL,
  console: SHELL,
  json: JSON_LANG,
  jsonc: JS,
  yaml: YAML,
  yml: YAML,
  sql: SQL,
  toml: TOML,
};

/** Lexer state carried from one line of a block to the next. */
export interface HighlightState {
  /** Inside a block comment, or a string opened with this quote. */
  open?: { kind: "comment" } | { kind: "string"; quote: string };
}

export interface Highlighter {
  line(text: string, state: HighlightState): Span[];
}

/** A highlighter for a fence's info string (`ts`, `python title="x"`), or undefined for unknown languages. */
export function highlighterFor(info: string, theme: Theme): Highlighter | undefined {
  const name = info.trim().split(/[\s{,]/)[0]?.toLowerCase() ?? "";
  if (name === "diff" || name === "patch") return { line: (text) => diffLine(text, theme) };
  const language = LANGUAGES[name];
  if (!language) return undefined;
  const styles = {
    comment: theme.fg("comment", "italic"),
    string: theme.fg("string"),
    number: theme.fg("number"),
    keyword: theme.fg("keyword"),
    constant: theme.fg("number"),
    type: theme.fg("type"),
    function: theme.fg("function"),
    operator: theme.fg("operator"),
    variable: theme.fg("type"),
    key: theme.fg("keyword"),
  };
  return { line: (text, state) => lexLine(text, language, styles, state, name === "yaml" || name === "yml") };
}

/** A unified-diff line in diff colours. */
export function diffLine(text: string, theme: Theme): Span[] {
  if (text.startsWith("+++") || text.startsWith("---")) return [{ text, style: theme.fg("muted", "bold") }];
  if (text.startsWith("+")) return [{ text, style: theme.fg("diffAdded") }];
  if (text.startsWith("-")) return [{ text, style: theme.fg("diffRemoved") }];
  if (text.startsWith("@@")) return [{ text, style: theme.fg("accent", "dim") }];
  return [{ text, style: theme.fg("muted") }];
}

type Styles = Record<"comment" | "string" | "number" | "keyword" | "constant" | "type" | "function" | "operator" | "variable" | "key", string>;

const IDENT_START = /[A-Za-z_$@]/;
const IDENT = /[A-Za-z0-9_$]/;
const OPERATORS = "+-*/%=<>!&|^~?:";

function lexLine(text: string, lang: Language, styles: Styles, state: HighlightState, yamlKeys: boolean): Span[] {
  const spans: Span[] = [];
  const push = (piece: string, style: string) => appendSpan(spans, piece, style);
  let i = 0;

  const closeOpen = (): boolean => {
    const open = state.open;
    if (!open) return true;
    const end = open.kind === "comment" ? lang.blockComment![1] : open.quote;
    const at = findClosing(text, i, end, open.kind === "string");
    if (at === -1) {
      push(text.slice(i), open.kind === "comment" ? styles.comment : styles.string);
      i = text.length;
      return false;
    }
    push(text.slice(i, at + end.length), open.kind === "comment" ? styles.comment : styles.string);
    i = at + end.length;
    state.open = undefined;
    return true;
  };
  if (!closeOpen()) return spans;

  if (yamlKeys) {
    const key = /^(\s*-?\s*)([\w.\-"' ]+?)(:)(\s|$)/.exec(text);
    if (key) {
      push(key[1]!, "");
      push(key[2]!, styles.key);
      push(key[3]!, styles.operator);
      i = key[1]!.length + key[2]!.length + 1;
    }
  }

  while (i < text.length) {
    const rest = text.slice(i);
    const ch = text[i]!;
    const comment = lang.lineComments.find((c) => rest.startsWith(c));
    if (comment && (!lang.hashNeedsSpace || i === 0 || /\s/.test(text[i - 1]!))) {
      push(rest, styles.comment);
      return spans;
    }
    if (lang.blockComment && rest.startsWith(lang.blockComment[0])) {
      state.open = { kind: "comment" };
      push(lang.blockComment[0], styles.comment);
      i += lang.blockComment[0].length;
      if (!closeOpen()) return spans;
      continue;
    }
    const quote = lang.quotes.find((q) => rest.startsWith(q));
    if (quote) {
      const at = findClosing(text, i + quote.length, quote, true);
      if (at === -1) {
        push(rest, styles.string);
        if (lang.multiline?.includes(quote)) state.open = { kind: "string", quote };
        return spans;
      }
      push(text.slice(i, at + quote.length), styles.string);
      i = at + quote.length;
      continue;
    }
    if (lang.variables && ch === "$") {
      const variable = /^\$(\{[^}]*\}|[A-Za-z_][A-Za-z0-9_]*|[0-9@#?*!$-])/.exec(rest);
      if (variable) {
        push(variable[0], styles.variable);
        i += variable[0].length;
        continue;
      }
    }
    if (/[0-9]/.test(ch) && (i === 0 || !IDENT.test(text[i - 1]!))) {
      const number = /^(0[xX][0-9a-fA-F_]+|0[bB][01_]+|[0-9][0-9_]*(\.[0-9_]+)?([eE][+-]?[0-9]+)?)[a-zA-Z0-9]*/.exec(rest)!;
      push(number[0], styles.number);
      i += number[0].length;
      continue;
    }
    if (IDENT_START.test(ch)) {
      let end = i + 1;
      while (end < text.length && (IDENT.test(text[end]!) || (lang.variables && text[end] === "-"))) end++;
      const word = text.slice(i, end);
      let style = "";
      if (lang.keywords.has(word)) style = styles.keyword;
      else if (lang.constants?.has(word)) style = styles.constant;
      else if (/^\s*\(/.test(text.slice(end)) || (text[end] === "!" && lang === RUST)) style = styles.function;
      else if (/^[A-Z][a-z0-9]/.test(word) || (word.startsWith("@") && word.length > 1)) style = styles.type;
      push(word, style);
      i = end;
      continue;
    }
    push(ch, OPERATORS.includes(ch) ? styles.operator : "");
    i++;
  }
  return spans;
}

/** Index of `end` at or after `from`, skipping backslash escapes in strings; -1 when the line ends first. */
function findClosing(text: string, from: number, end: string, escapes: boolean): number {
  for (let i = from; i < text.length; i++) {
    if (escapes && text[i] === "\\") {
      i++;
      continue;
    }
    if (text.startsWith(end, i)) return i;
  }
  return -1;
}
