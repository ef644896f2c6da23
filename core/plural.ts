/** `count` with its noun in the right number: "1 file", "3 files", `plural(2, "match", "matches")`. */
export function plural(count: number, word: string, many = `${word}s`): string {
  return `${count} ${count === 1 ? word : many}`;
}
