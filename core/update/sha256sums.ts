/** SHA256SUMS in coreutils' format (`<hex>  <name>` per line), which `sha256sum -c` also reads. */

const LINE = /^([0-9a-f]{64}) [ *]([A-Za-z0-9][A-Za-z0-9._+-]*)$/;

/** Name → sha256. Throws on a malformed line or a name listed twice, since either means a damaged file. */
export function parseSha256Sums(text: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const [index, line] of text.split("\n").entries()) {
    if (line === "") continue;
    const match = LINE.exec(line);
    if (!match) throw new Error(`SHA256SUMS line ${index + 1} is malformed: ${JSON.stringify(line.slice(0, 120))}`);
    if (sums.has(match[2]!)) throw new Error(`SHA256SUMS lists ${match[2]} twice`);
    sums.set(match[2]!, match[1]!);
  }
  if (sums.size === 0) throw new Error("SHA256SUMS is empty");
  return sums;
}

export function formatSha256Sums(entries: Iterable<[name: string, sha256: string]>): string {
  return [...entries]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, sha256]) => `${sha256}  ${name}\n`)
    .join("");
}

export function sha256Hex(data: Uint8Array): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}
