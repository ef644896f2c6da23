/** Quote-aware split of the arguments, as a shell splits words: "a b" stays one, and so does key="a b" (as key=a b). */
export function splitArgs(args: string): string[] {
  return [...args.matchAll(/(?:"[^"]*"|'[^']*'|[^\s"']+)+/g)].map(([word]) => word.replace(/"([^"]*)"|'([^']*)'/g, (_, double: string | undefined, single: string | undefined) => double ?? single ?? ""));
}
