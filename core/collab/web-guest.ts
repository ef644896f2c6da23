import { webGuestAssets } from "./web/assets.ts" with { type: "macro" };

/**
 * The web guest's files as the relay serves them. Only the relay's own origin may supply script,
 * style and connections (the page talks to nothing else), and no page may frame it.
 */
const ASSETS = webGuestAssets();

const SECURITY = {
  "content-security-policy": "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-cache",
};

const FILES: Record<string, { body: string; type: string }> = {
  "/": { body: ASSETS.html, type: "text/html; charset=utf-8" },
  "/guest.js": { body: ASSETS.js, type: "text/javascript; charset=utf-8" },
  "/guest.css": { body: ASSETS.css, type: "text/css; charset=utf-8" },
  // Browsers ask for it whatever the page says; empty rather than a 404 in the guest's console.
  "/favicon.ico": { body: "", type: "image/x-icon" },
};

/** The page or one of its files for a GET of `path`; undefined for any other path. */
export function webGuestFile(path: string): Response | undefined {
  const file = FILES[path];
  return file ? new Response(file.body, { headers: { ...SECURITY, "content-type": file.type } }) : undefined;
}
