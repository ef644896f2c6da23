/**
 * When the old text is not in the file, the model needs to see what is there instead: the lines
 * most like it, which edit/diagnose.ts then compares with it to name the difference.
 */

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
