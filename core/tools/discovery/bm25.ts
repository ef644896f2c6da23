/**
 * BM25+ ranking of tools, as the original omp's tool index (tool-discovery/tool-index.ts): each
 * tool is one document whose fields count with a weight (its name most, then its MCP server and
 * description, then each parameter name), scored against the query's tokens.
 */

const K1 = 1.2;
const B = 0.75;
const DELTA = 1.0;

export interface ToolDocument {
  name: string;
  description: string;
  server?: string;
  /** The names of its parameters (the input schema's top-level properties). */
  schemaKeys: readonly string[];
}

const FIELD_WEIGHTS = { name: 6, server: 2, description: 2, schemaKey: 1 } as const;

/**
 * Words of a text, lowercased: accents dropped, camelCase, acronyms and digit-to-capital
 * boundaries split (`readHTTPFile2Json` → read http file 2 json), anything but letters and
 * numbers a separator.
 */
export function tokenize(text: string): string[] {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .replace(/(\p{Ll})(\p{Lu})/gu, "$1 $2")
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, "$1 $2")
    .replace(/(\p{N})(\p{L})/gu, "$1 $2")
    .replace(/(\p{L})(\p{N})/gu, "$1 $2")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .toLowerCase()
    .split(" ")
    .filter(Boolean);
}

interface Indexed<T> {
  item: T;
  /** Weighted term frequencies. */
  terms: Map<string, number>;
  length: number;
}

export interface Ranked<T> {
  item: T;
  score: number;
}

/** An index over `items` ranked by BM25+; built once per corpus. */
export class Bm25Index<T> {
  private readonly documents: Indexed<T>[];
  private readonly documentFrequency = new Map<string, number>();
  private readonly averageLength: number;

  constructor(items: readonly T[], document: (item: T) => ToolDocument) {
    this.documents = items.map((item) => {
      const doc = document(item);
      const terms = new Map<string, number>();
      let length = 0;
      const add = (text: string, weight: number) => {
        for (const token of tokenize(text)) {
          terms.set(token, (terms.get(token) ?? 0) + weight);
          length += weight;
        }
      };
      add(doc.name, FIELD_WEIGHTS.name);
      if (doc.server) add(doc.server, FIELD_WEIGHTS.server);
      add(doc.description, FIELD_WEIGHTS.description);
      for (const key of doc.schemaKeys) add(key, FIELD_WEIGHTS.schemaKey);
      for (const term of terms.keys()) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
      return { item, terms, length };
    });
    this.averageLength = this.documents.reduce((sum, doc) => sum + doc.length, 0) / Math.max(1, this.documents.length);
  }

  get size(): number {
    return this.documents.length;
  }

  /** Documents matching any query token, best first (ties by `tieBreak`). Throws when the query has no letter or number. */
  search(query: string, tieBreak: (item: T) => string): Ranked<T>[] {
    const tokens = [...new Set(tokenize(query))];
    if (tokens.length === 0) throw new Error("Query must contain at least one letter or number.");
    const total = this.documents.length;
    const ranked: Ranked<T>[] = [];
    for (const doc of this.documents) {
      let score = 0;
      for (const token of tokens) {
        const tf = doc.terms.get(token);
        if (!tf) continue;
        const df = this.documentFrequency.get(token) ?? 0;
        const idf = Math.log(1 + (total - df + 0.5) / (df + 0.5));
        const norm = K1 * (1 - B + (B * doc.length) / (this.averageLength || 1));
        score += idf * ((tf * (K1 + 1)) / (tf + norm) + DELTA);
      }
      if (score > 0) ranked.push({ item: doc.item, score });
    }
    return ranked.sort((a, b) => b.score - a.score || tieBreak(a.item).localeCompare(tieBreak(b.item)));
  }
}
