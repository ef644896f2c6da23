/** Release versions are semver: `1.2.3`, `1.2.3-canary.4`, optionally `+build` (ignored in comparisons). */
export const VERSION_PATTERN = /^(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/;

export function isVersion(text: string): boolean {
  return VERSION_PATTERN.test(text);
}

function comparePrerelease(a: string | undefined, b: string | undefined): number {
  // A release ranks above its pre-releases: 1.0.0-canary.1 < 1.0.0.
  if (a === undefined || b === undefined) return a === b ? 0 : a === undefined ? 1 : -1;
  const left = a.split(".");
  const right = b.split(".");
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    const x = left[i];
    const y = right[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const xNum = /^\d+$/.test(x);
    const yNum = /^\d+$/.test(y);
    if (xNum && yNum) {
      const diff = Number(x) - Number(y);
      if (diff !== 0) return Math.sign(diff);
    } else if (xNum !== yNum) {
      return xNum ? -1 : 1;
    } else if (x !== y) {
      return x < y ? -1 : 1;
    }
  }
  return 0;
}

/** Semver precedence: negative when a < b, 0 when equal, positive when a > b. Throws on a non-version. */
export function compareVersions(a: string, b: string): number {
  const x = VERSION_PATTERN.exec(a);
  const y = VERSION_PATTERN.exec(b);
  if (!x || !y) throw new Error(`not a version: ${JSON.stringify(x ? b : a)}`);
  for (let i = 1; i <= 3; i++) {
    const diff = Number(x[i]) - Number(y[i]);
    if (diff !== 0) return Math.sign(diff);
  }
  return comparePrerelease(x[4], y[4]);
}
