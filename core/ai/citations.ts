/**
 * The sources a provider's own web search cites, kept in the answer's text as numbered Markdown
 * links (`[[1]](url)`), each source numbered once per reply: every front end shows them and the
 * next request carries them back, whatever the provider. Links wait for the end of their block,
 * since citations may arrive before the text they back.
 */
export class CitationLinks {
  private readonly numbers = new Map<string, number>();
  private readonly pending = new Map<number, string[]>();

  add(block: number, url: unknown): void {
    if (typeof url !== "string" || url === "") return;
    if (!this.numbers.has(url)) this.numbers.set(url, this.numbers.size + 1);
    const urls = this.pending.get(block) ?? [];
    if (!urls.includes(url)) urls.push(url);
    this.pending.set(block, urls);
  }

  /** The links to append to `block`'s text as it ends ("" when it cites nothing). */
  take(block: number): string {
    const urls = this.pending.get(block) ?? [];
    this.pending.delete(block);
    return urls.map((url) => ` [[${this.numbers.get(url)}]](${url})`).join("");
  }
}
