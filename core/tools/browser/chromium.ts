/** Chromium as the original finds it: PUPPETEER_EXECUTABLE_PATH, else a system Chrome/Chromium on PATH. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.PUPPETEER_EXECUTABLE_PATH) return env.PUPPETEER_EXECUTABLE_PATH;
  for (const name of ["chromium", "chromium-browser", "google-chrome-stable", "google-chrome"]) {
    const found = Bun.which(name, env.PATH ? { PATH: env.PATH } : {});
    if (found) return found;
  }
  return undefined;
}
