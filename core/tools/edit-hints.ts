/**
 * When `oldText` is not in the file, the model needs to see what is there instead: usually the
 * same code with other indentation, or a line it misremembered. These find that region.
 */

/** 1-based line number of a character offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < offset; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

/** Lines `from`..`to` (1-based, inclusive) numbered like `read` prints them. */
export function numberedLines(text: string, from: number, to: number): string {
  const lines = text.split("\n");
  const width = Math.max(6, String(to).length);
  const out: string[] = [];
  for (let n = from; n <= Math.min(to, lines.length); n++) out.push(`${String(n).padStart(width)}\t${lines[n - 1]}`);
  return out.join("\n");
}

/** Where `needle` occurs in `text` if whitespace is ignored altogether, as a line range. */
export function findIgnoringWhitespace(text: string, needle: string): { from: number; to: number } | undefined {
  const squeezedNeedle = needle.replace(/\s+/g, "");
  if (squeezedNeedle === "") return undefined;
  // The squeezed text, and for each of its characters the offset it came from.
  let squeezed = "";
  const origin: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (/\s/.test(c)) continue;
    squeezed += c;
    origin.push(i);
  }
  const at = squeezed.indexOf(squeezedNeedle);
  if (at === -1) return undefined;
  return { from: lineAt(text, origin[at]!), to: lineAt(text, origin[at + squeezedNeedle.length - 1]!) };
}

function bigrams(line: string): Map<string, number> {
  const grams = new Map<string, number>();
  for (let i = 0; i < line.length - 1; i++) {
    const gram = line.slice(i, i + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  return grams;
}

/** Dice similarity of two lines' character pairs: 1 for equal lines, near 0 for unrelated ones. */
function similarity(a: Map<string, number>, b: Map<string, number>, aText: string, bText: string): number {
  if (aText === bText) return 1;
  let total = 0;
  let shared = 0;
  for (const count of a.values()) total += count;
  for (const [gram, count] of b) {
    total += count;
    shared += Math.min(count, a.get(gram) ?? 0);
  }
  return total === 0 ? 0 : (2 * shared) / total;
}

/** How many anchor positions are scored in full; the rest are ruled out by their anchor line. */
const CANDIDATES = 20;
const MIN_SIMILARITY = 0.5;

/**
 * The run of lines most like `needle`, compared line by line with surrounding whitespace ignored.
 * Candidates are anchored on the needle's longest line so that big files stay cheap.
 */
export function closestRegion(text: string, needle: string): { from: number; to: number; score: number } | undefined {
  const fileLines = text.split("\n").map((line) => line.trim());
  const needleLines = needle.split("\n").map((line) => line.trim());
  const fileGrams = fileLines.map(bigrams);
  const needleGrams = needleLines.map(bigrams);
  let anchor = 0;
  needleLines.forEach((line, i) => {
    if (line.length > needleLines[anchor]!.length) anchor = i;
  });
  const anchorScores = fileLines
    .map((line, i) => ({ start: i - anchor, score: similarity(needleGrams[anchor]!, fileGrams[i]!, needleLines[anchor]!, line) }))
    .filter((c) => c.start >= 0 && c.start + needleLines.length <= fileLines.length)
    .sort((a, b) => b.score - a.score)
    .slice(0, CANDIDATES);
  let best: { from: number; to: number; score: number } | undefined;
  for (const { start } of anchorScores) {
    let sum = 0;
    for (let i = 0; i < needleLines.length; i++) {
      sum += similarity(needleGrams[i]!, fileGrams[start + i]!, needleLines[i]!, fileLines[start + i]!);
    }
    const score = sum / needleLines.length;
    if (!best || score > best.score) best = { from: start + 1, to: start + needleLines.length, score };
  }
  return best && best.score >= MIN_SIMILARITY ? best : undefined;
}
