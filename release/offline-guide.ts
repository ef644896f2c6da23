/** OFFLINE.md, the guide inside each air-gapped bundle. */
export function offlineGuide(version: string, target: string, binary: string, bundle: string): string {
  return `# omp ${version} for ${target}, offline

This bundle installs omp on a machine without network access. It holds:

- \`${binary}\`: the omp executable (everything it needs is inside it)
- \`SHA256SUMS\`: checksums of every file of the release
- \`SHA256SUMS.sig\`: the Ed25519 signature of SHA256SUMS by the omp release key
- \`install.sh\`: the installer, which carries the release public key

## Install

Copy \`${bundle}\` to the machine, then:

\`\`\`sh
sh install.sh --archive ${bundle}
\`\`\`

(or unpack it and run \`sh install.sh --archive .\` inside). The installer checks the signature
with openssl (1.1.1 or newer) and the binary's sha256, and installs to \`~/.local/bin\`
(\`OMP_INSTALL_DIR\` to change it). Without openssl it stops; \`--allow-unsigned\` installs anyway
after checking only the sha256, which then proves nothing about who made the file.

## Update an installed omp

\`\`\`sh
omp update --from ${bundle}
\`\`\`

omp verifies the bundle with the release key built into it, swaps the binary atomically and
keeps the old one if anything fails.

## Optional features (language servers, a Python kernel, a browser)

omp itself needs nothing else. Some features use programs of the machine: \`omp setup\` lists them
and whether each is installed. On a server without network access, \`omp setup <feature> --dry-run\`
prints the packages it would install; fetch them on a connected machine of the same distribution
(\`apt-get download <packages>\` and their dependencies, or \`npm pack <package>\` for the Node.js
language servers), copy them over, and install them with \`dpkg -i *.deb\` or
\`npm install -g ./<package>.tgz\` — or point apt at your local mirror and run \`omp setup <feature>\`.

## Verify by hand

\`\`\`sh
openssl pkeyutl -verify -pubin -inkey omp-release.pub -rawin -in SHA256SUMS -sigfile SHA256SUMS.sig
sha256sum --ignore-missing -c SHA256SUMS
\`\`\`

where \`omp-release.pub\` is the public key published at https://omp.sh and printed in install.sh
(\`OMP_RELEASE_PUBKEY\`, between \`-----BEGIN PUBLIC KEY-----\` and \`-----END PUBLIC KEY-----\`).
`;
}
