/**
 * The names Claude Code users write for a Claude model besides its catalog id: dated
 * (`claude-sonnet-4-5-20250929`), `-latest`, with a `-0` minor (`claude-sonnet-4-0`) and in the
 * older order (`claude-3-5-haiku`). Read as a family and a version, they are compared with the
 * catalog's ids, which are written the newest way (`claude-sonnet-4-5`).
 */

export interface ClaudeName {
  family: string;
  /** Trailing zeros dropped: `4-0` and `4` are the same version. */
  version: number[];
}

const NEW_ORDER = /^claude-([a-z]+)-(\d+(?:[-.]\d+)*)$/;
const OLD_ORDER = /^claude-(\d+(?:[-.]\d+)*)-([a-z]+)$/;

export function claudeName(id: string): ClaudeName | undefined {
  const plain = id
    .toLowerCase()
    .replace(/-(latest|\d{8})$/, "")
    .replace(/-v\d+(:\d+)?$/, "");
  const match = NEW_ORDER.exec(plain);
  const old = match ? undefined : OLD_ORDER.exec(plain);
  const family = match?.[1] ?? old?.[2];
  const digits = match?.[2] ?? old?.[1];
  if (!family || !digits) return undefined;
  const version = digits.split(/[-.]/).map(Number);
  while (version.length > 1 && version.at(-1) === 0) version.pop();
  return { family, version };
}

export function sameClaude(a: ClaudeName, b: ClaudeName): boolean {
  return a.family === b.family && a.version.join(".") === b.version.join(".");
}

/** How far apart two versions are, for taking the nearest catalog model's limits and thinking. */
export function versionDistance(a: number[], b: number[]): number {
  return Math.abs((a[0] ?? 0) * 100 + (a[1] ?? 0) - ((b[0] ?? 0) * 100 + (b[1] ?? 0)));
}
