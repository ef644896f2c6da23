/**
 * Turndown is given linkedom nodes, never strings: that spares it serializing and parsing the page
 * again (half its time), and lets omp carry Turndown's browser build, without the 0.8 MB HTML
 * parser (domino) its Node build brings for strings.
 */
type Converter = { turndown(input: object): string };

/**
 * HTML to Markdown of a page's main content: linkedom parses (no browser, fast on big pages),
 * Readability picks the article out of the navigation, ads and footers (Firefox's reader view),
 * Turndown writes Markdown. All three are imported on the first page.
 *
 * Chosen by measurement on a 2 MB documentation page (bench/web.ts): node-html-markdown took 3.6 s
 * where Turndown took 0.8 s; turndown-plugin-gfm's table rules doubled Turndown's time, so tables,
 * strikethrough and highlighted code have small rules of their own here.
 */
export interface PageMarkdown {
  title: string | undefined;
  markdown: string;
  /** Readability found no main content; the whole body was converted. */
  wholePage: boolean;
}

/**
 * Past this many elements Readability's scoring takes seconds (1.4 s for 34,000); such a page's
 * <main> or <article> is taken as its content instead, or the whole body without its chrome.
 */
const READABILITY_MAX_ELEMENTS = 8_000;
/** Site chrome dropped when a page is converted without Readability; inside <main> a <header> or <footer> is the article's own. */
const CHROME = "script, style, noscript, template, svg, nav, header, footer, aside, iframe, form, [role=navigation], [role=banner], [role=contentinfo]";
const INNER_CHROME = "script, style, noscript, template, svg, nav, aside, iframe, form, [role=navigation]";

type Node = { nodeName: string; textContent: string | null; getAttribute(name: string): string | null; parentNode: Node | null; childNodes: ArrayLike<Node> };
type Dom = { querySelector(selector: string): (Node & { innerHTML: string; remove(): void }) | null; querySelectorAll(selector: string): ArrayLike<Node & { remove(): void; setAttribute(name: string, value: string): void }> };

export async function htmlToMarkdown(html: string, baseUrl: string): Promise<PageMarkdown> {
  const [{ parseHTML }, turndown] = await Promise.all([import("linkedom"), converter()]);
  const { document } = parseHTML(html) as unknown as { document: Dom };
  absolutize(document, baseUrl);
  const title = document.querySelector("title")?.textContent?.trim() || undefined;
  if (document.querySelectorAll("*").length <= READABILITY_MAX_ELEMENTS) {
    const { Readability } = await import("@mozilla/readability");
    let article: { title?: string | null; content?: string | null } | null = null;
    try {
      article = new Readability(document as never, { charThreshold: 200, keepClasses: true }).parse();
    } catch {
      article = null;
    }
    if (article?.content) return { title: article.title?.trim() || title, markdown: tidy(turndown.turndown(fragment(parseHTML, article.content))), wholePage: false };
    // Readability changed the document it was given: the fallback starts from the page again.
    return wholePage((parseHTML(html) as unknown as { document: Dom }).document, baseUrl, title, turndown);
  }
  const main = document.querySelector("main, [role=main], article");
  if (main) {
    for (const node of Array.from((main as unknown as Dom).querySelectorAll(INNER_CHROME))) node.remove();
    return { title, markdown: tidy(turndown.turndown(main)), wholePage: false };
  }
  return wholePage(document, baseUrl, title, turndown);
}

function wholePage(document: Dom, baseUrl: string, title: string | undefined, turndown: Converter): PageMarkdown {
  absolutize(document, baseUrl);
  for (const node of Array.from(document.querySelectorAll(CHROME))) node.remove();
  const body = document.querySelector("body");
  return { title, markdown: tidy(body ? turndown.turndown(body) : ""), wholePage: true };
}

/** An HTML fragment (a Word document's, an e-book chapter's) as Markdown, without picking a main part. */
export async function htmlFragmentToMarkdown(html: string): Promise<string> {
  const [{ parseHTML }, turndown] = await Promise.all([import("linkedom"), converter()]);
  return tidy(turndown.turndown(fragment(parseHTML, html)));
}

/** An HTML fragment as a node: the <body> of a document holding it. */
function fragment(parseHTML: (html: string) => unknown, html: string): object {
  const { document } = parseHTML(`<!DOCTYPE html><html><head></head><body>${html}</body></html>`) as { document: Dom };
  return document.querySelector("body")!;
}

let cached: Promise<Converter> | undefined;

function converter(): Promise<Converter> {
  cached ??= (async () => {
    const { default: TurndownService } = await import("turndown/lib/turndown.browser.es.js");
    const service = new TurndownService({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-", emDelimiter: "*" });
    service.remove(["script", "style", "noscript", "template"]);
    const cellText = (content: string) => content.replace(/\n+/g, " ").replace(/\|/g, "\\|").trim();
    service.addRule("tableCell", { filter: ["th", "td"], replacement: (content) => ` ${cellText(content)} |` });
    service.addRule("tableRow", {
      filter: "tr",
      replacement: (content, node) => {
        const row = `|${content}\n`;
        // The first row is the header (Markdown tables need one), whether or not it is in a <thead>.
        let table = (node as unknown as Node).parentNode;
        while (table && table.nodeName !== "TABLE") table = table.parentNode;
        const first = (table as unknown as Dom | null)?.querySelector("tr");
        if (first !== (node as unknown)) return row;
        const cells = Array.from((node as unknown as Node).childNodes).filter((child) => child.nodeName === "TD" || child.nodeName === "TH").length;
        return `${row}|${" --- |".repeat(Math.max(1, cells))}\n`;
      },
    });
    service.addRule("tableSection", { filter: ["thead", "tbody", "tfoot"], replacement: (content) => content });
    service.addRule("table", { filter: "table", replacement: (content) => `\n\n${content.replace(/\n{2,}/g, "\n").trim()}\n\n` });
    service.addRule("strikethrough", { filter: ["del", "s", "strike" as "s"], replacement: (content) => `~~${content}~~` });
    // Code blocks keep their language: class="language-ts" on <code> (docs generators) or
    // highlight-source-rust on the <pre>'s parent (GitHub).
    service.addRule("fencedWithLanguage", {
      filter: (node) => node.nodeName === "PRE",
      replacement: (_content, node) => {
        const pre = node as unknown as Node;
        const code = pre.childNodes[0]?.nodeName === "CODE" ? pre.childNodes[0] : undefined;
        const classes = `${code?.getAttribute("class") ?? ""} ${pre.getAttribute("class") ?? ""} ${pre.parentNode?.getAttribute?.("class") ?? ""}`;
        const language = /(?:language|lang|highlight-source)-([\w+-]+)/.exec(classes)?.[1] ?? "";
        const text = (code ?? pre).textContent ?? "";
        const fence = text.includes("```") ? "~~~~" : "```";
        return `\n\n${fence}${language}\n${text.replace(/\n$/, "")}\n${fence}\n\n`;
      },
    });
    return service as Converter;
  })();
  return cached;
}

/** Links and images point where they did on the page, not at the Markdown's nowhere. */
function absolutize(document: Dom, baseUrl: string): void {
  for (const [selector, attribute] of [["a[href]", "href"], ["img[src]", "src"]] as const) {
    for (const element of Array.from(document.querySelectorAll(selector))) {
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
