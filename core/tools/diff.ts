/**
 * Line diffs for edit results: Myers' O(ND) algorithm on lines, printed as a unified diff that
 * `patch` and `git apply` accept.
 */

type Op = { kind: "equal" | "delete" | "insert"; line: string };

/** Beyond this many differences the diff is shown as one replaced block rather than computed. */
const MAX_EDIT_DISTANCE = 2000;

/** Lines keep their terminator, so a missing final newline is a difference like any other. */
function splitLines(text: string): string[] {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g);
  return lines ?? [];
}

/** The shortest edit script between `a` and `b`, or undefined when it is longer than `maxD`. */
function myers(a: string[], b: string[], maxD: number): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const offset = maxD + 1;
  const v = new Int32Array(2 * maxD + 3);
  // trace[d]: the furthest x on diagonals -d..d before step d, i.e. where step d started from.
  const trace: Int32Array[] = [];
  for (let d = 0; d <= maxD; d++) {
    trace.push(v.slice(offset - d, offset + d + 1));
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(a, b, trace, d);
    }
  }
  return undefined;
}

function backtrack(a: string[], b: string[], trace: Int32Array[], dEnd: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d]!;
    const at = (k: number) => v[k + d]!;
    const k = x - y;
    const down = k === -d || (k !== d && at(k - 1) < at(k + 1));
    const prevK = down ? k + 1 : k - 1;
    const prevX = at(prevK);
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: "equal", line: a[--x]! });
      y--;
    }
    if (down) ops.push({ kind: "insert", line: b[prevY]! });
    else ops.push({ kind: "delete", line: a[prevX]! });
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push({ kind: "equal", line: a[--x]! });
    y--;
  }
  return ops.reverse();
}

/** Common head and tail are peeled off first: edits touch a few lines of large files. */
function diffLines(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  const middle = myers(midA, midB, Math.min(MAX_EDIT_DISTANCE, midA.length + midB.length)) ?? [
    ...midA.map((line): Op => ({ kind: "delete", line })),
    ...midB.map((line): Op => ({ kind: "insert", line })),
  ];
  return [
    ...a.slice(0, start).map((line): Op => ({ kind: "equal", line })),
    ...middle,
    ...a.slice(endA).map((line): Op => ({ kind: "equal", line })),
  ];
}

export interface UnifiedDiff {
  /** Empty when the texts are equal. */
  text: string;
  added: number;
  removed: number;
  /** 1-based line in the new text where the first change is, when there is one. */
  firstChangedLine?: number;
}

function printLine(prefix: string, line: string): string {
  return line.endsWith("\n") ? `${prefix}${line}` : `${prefix}${line}\n\\ No newline at end of file\n`;
}

/** A unified diff (`--- a/path`, `+++ b/path`, `@@` hunks with `context` lines around changes). */
export function unifiedDiff(before: string, after: string, path: string, context = 3): UnifiedDiff {
  const ops = diffLines(splitLines(before), splitLines(after));
  const changed = ops.map((op, i) => (op.kind === "equal" ? -1 : i)).filter((i) => i >= 0);
  if (changed.length === 0) return { text: "", added: 0, removed: 0 };

  // Group changes whose context windows touch into hunks.
  const groups: [number, number][] = [];
  for (const i of changed) {
    const lastGroup = groups[groups.length - 1];
    if (lastGroup && i - lastGroup[1] <= 2 * context + 1) lastGroup[1] = i;
    else groups.push([i, i]);
  }

  // Line numbers (0-based) in each text at the start of every op.
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let oldLine = 0;
  let newLine = 0;
  for (const op of ops) {
    oldAt.push(oldLine);
    newAt.push(newLine);
    if (op.kind !== "insert") oldLine++;
    if (op.kind !== "delete") newLine++;
  }

  // Absolute paths (outside the cwd) have no a/ b/ prefixes to hang off.
  const [oldLabel, newLabel] = path.startsWith("/") ? [path, path] : [`a/${path}`, `b/${path}`];
  let text = `--- ${oldLabel}\n+++ ${newLabel}\n`;
  let added = 0;
  let removed = 0;
  for (const [first, last] of groups) {
    const from = Math.max(0, first - context);
    const to = Math.min(ops.length - 1, last + context);
    let oldCount = 0;
    let newCount = 0;
    let body = "";
    for (let i = from; i <= to; i++) {
      const op = ops[i]!;
      if (op.kind === "equal") {
        oldCount++;
        newCount++;
        body += printLine(" ", op.line);
      } else if (op.kind === "delete") {
        oldCount++;
        removed++;
        body += printLine("-", op.line);
      } else {
        newCount++;
        added++;
        body += printLine("+", op.line);
      }
    }
    // An empty side is numbered by the line before it, as diff(1) does.
    const oldStart = oldCount === 0 ? oldAt[from]! : oldAt[from]! + 1;
    const newStart = newCount === 0 ? newAt[from]! : newAt[from]! + 1;
    text += `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@\n${body}`;
  }
  const firstOp = groups[0]![0];
  return { text, added, removed, firstChangedLine: newAt[firstOp]! + 1 };
}
