/**
 * HTML to Markdown of a page's main content: linkedom parses (no browser, fast on big pages),
 * Readability picks the article out of the navigation, ads and footers (Firefox's reader view),
 * Turndown with GitHub-flavoured tables writes Markdown. All three are imported on the first page.
 */
export interface PageMarkdown {
  title: string | undefined;
  markdown: string;
  /** Readability found no main content; the whole body was converted. */
  wholePage: boolean;
}

/** Beyond this, Readability's scoring gets slow; such pages are converted whole. */
const READABILITY_MAX_ELEMENTS = 20_000;

export async function htmlToMarkdown(html: string, baseUrl: string): Promise<PageMarkdown> {
  const [{ parseHTML }, { Readability }, turndown] = await Promise.all([import("linkedom"), import("@mozilla/readability"), converter()]);
  const { document } = parseHTML(html);
  absolutize(document, baseUrl);
  const title = document.querySelector("title")?.textContent?.trim() || undefined;
  let article: { title?: string | null; content?: string | null } | null = null;
  if (document.getElementsByTagName("*").length <= READABILITY_MAX_ELEMENTS) {
    try {
      // Readability changes the document it is given; the whole-page fallback needs the original.
      article = new Readability(parseHTML(document.toString()).document as never, { charThreshold: 200, keepClasses: true }).parse();
    } catch {
      article = null;
    }
  }
  if (article?.content) {
    return { title: article.title?.trim() || title, markdown: tidy(turndown.turndown(article.content)), wholePage: false };
  }
  for (const node of [...document.querySelectorAll("script, style, noscript, template, svg, nav, footer, iframe")]) node.remove();
  const body = document.querySelector("body") ?? document.documentElement;
  return { title, markdown: tidy(turndown.turndown(body?.innerHTML ?? "")), wholePage: true };
}

let cached: Promise<{ turndown(html: string): string }> | undefined;

function converter(): Promise<{ turndown(html: string): string }> {
  cached ??= (async () => {
    const [{ default: TurndownService }, gfm] = await Promise.all([import("turndown"), import("turndown-plugin-gfm")]);
    const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "*" });
    service.use(gfm.gfm);
    service.remove(["script", "style", "noscript", "template"]);
    // Code blocks keep their language (GitHub, docs generators: class="language-ts").
    service.addRule("fencedWithLanguage", {
      filter: (node) => node.nodeName === "PRE" && node.firstChild?.nodeName === "CODE",
      replacement: (_content, node) => {
        const code = node.firstChild as unknown as { getAttribute(name: string): string | null; textContent: string | null };
        const language = /(?:language|lang)-([\w+-]+)/.exec(code.getAttribute("class") ?? "")?.[1] ?? "";
        const text = code.textContent ?? "";
        const fence = text.includes("```") ? "~~~~" : "```";
        return `\n\n${fence}${language}\n${text.replace(/\n$/, "")}\n${fence}\n\n`;
      },
    });
    return service;
  })();
  return cached;
}

/** Links and images point where they did on the page, not at the Markdown's nowhere. */
function absolutize(document: { querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null; setAttribute(name: string, value: string): void }> }, baseUrl: string): void {
  for (const [selector, attribute] of [["a[href]", "href"], ["img[src]", "src"]] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute);
      if (!value || value.startsWith("#") || /^(javascript|data):/i.test(value)) continue;
      try {
        element.setAttribute(attribute, new URL(value, baseUrl).href);
      } catch {
        // A malformed link stays as written.
      }
    }
  }
}

function tidy(markdown: string): string {
  return markdown.replace(/\n{3,}/g, "\n\n").trim();
}

/** An HTML fragment (a Word document's, an e-book chapter's) as Markdown, without picking a main part. */
export async function htmlFragmentToMarkdown(html: string): Promise<string> {
  return tidy((await converter()).turndown(html));
}
