/** Prefixes that say which kind of key it is and carry no secret, so a masked key keeps them. */
const KNOWN_PREFIXES = ["sk-ant-", "sk-proj-", "sk-or-v1-", "sk-", "AIza", "github_pat_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "xai-", "gsk_"];

/**
 * A key as it may be shown: its known kind prefix and, when the key is long enough for that to
 * leave plenty hidden, its last four characters (`sk-ant-…a1b2`). Enough to tell keys apart.
 */
export function maskKey(key: string): string {
  const prefix = KNOWN_PREFIXES.find((candidate) => key.startsWith(candidate) && key.length > candidate.length) ?? "";
  const tail = key.length - prefix.length >= 16 ? key.slice(-4) : "";
  return `${prefix}…${tail}`;
}
