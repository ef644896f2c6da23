/**
 * The API's root from a configured base URL. omp's base URLs stop at the host, the original omp's
 * (and Google's own examples) include the version: `…/v1beta` is taken as the same root, never doubled.
 */
export function geminiRoot(baseUrl: string): string {
  return baseUrl.replace(/\/+$/, "").replace(/\/v1beta$/, "");
}
