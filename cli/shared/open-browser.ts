/**
 * Opens `url` in the user's browser where there is one. Never the only way: callers print the URL
 * too, for a terminal over ssh or a machine without a desktop. OMP_NO_BROWSER=1 only prints.
 */
export function openBrowser(url: string | URL): void {
  if (process.env.OMP_NO_BROWSER || (process.platform === "linux" && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY)) return;
  const opener = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  try {
    Bun.spawn([opener, url.toString()], { stdio: ["ignore", "ignore", "ignore"] }).unref();
  } catch {
    // No opener installed: the URL is on the screen.
  }
}
