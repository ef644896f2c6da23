/** Longest query taken from the model (the original's mnemopi.recallMaxQueryChars). */
export const MAX_QUERY_CHARS = 4000;
/** Terms past this many add little to the ranking and cost a term scan each. */
const MAX_TERMS = 32;

/**
 * An FTS5 MATCH expression for free text: each word quoted as a string (so `AND`, `NEAR`, `*`,
 * `:`, `-` and unbalanced quotes in the model's text are plain words, never syntax), joined with OR
 * so that any shared word finds a memory and bm25 ranks those sharing more and rarer words first.
 * Undefined when the text has no word at all.
 */
export function ftsQuery(text: string): string | undefined {
  const words = text.slice(0, MAX_QUERY_CHARS).toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const terms = [...new Set(words)].slice(0, MAX_TERMS);
  if (terms.length === 0) return undefined;
  return terms.map((term) => `"${term}"`).join(" OR ");
}
