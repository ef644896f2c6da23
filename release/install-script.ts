/**
 * install.sh as served with a release: the repository's script with the release's public key and
 * base URL written into its two settings lines. Throws if those lines are missing, so a reworded
 * script cannot ship with the wrong key.
 */
export function installScript(template: string, publicKey: string, baseUrl: string): string {
  const set = (text: string, name: string, value: string) => {
    const line = new RegExp(`^${name}='[^'\\n]*'$`, "m");
    if (!line.test(text)) throw new Error(`release/install.sh has no ${name}='...' line to fill in`);
    if (/['\n]/.test(value)) throw new Error(`${name} cannot hold ${JSON.stringify(value)}`);
    return text.replace(line, `${name}='${value}'`);
  };
  return set(set(template, "OMP_RELEASE_PUBKEY", publicKey), "OMP_DEFAULT_URL", baseUrl);
}
