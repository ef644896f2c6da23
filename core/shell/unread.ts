/** Characters of unread output a read returns at most: the first part and the latest part. */
const HEAD_CHARS = 4_000;
const TAIL_CHARS = 12_000;

/**
 * A job's output the model has not read yet, bounded: the start of it and a rolling end, with a
 * count of what fell between (the log file has it all).
 */
export class UnreadText {
  private head = "";
  private tail = "";
  private skipped = 0;

  push(text: string): void {
    if (text === "") return;
    if (this.head.length < HEAD_CHARS) {
      const room = HEAD_CHARS - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    this.tail += text;
    if (this.tail.length > 2 * TAIL_CHARS) {
      this.skipped += this.tail.length - TAIL_CHARS;
      this.tail = this.tail.slice(-TAIL_CHARS);
    }
  }

  /** What a regex waiting for output is tested against. */
  peek(): string {
    return this.tail.length > TAIL_CHARS ? this.head + this.tail.slice(-TAIL_CHARS) : this.head + this.tail;
  }

  /** Everything unread, marked where the middle was dropped; then it counts as read. */
  take(): { text: string; skipped: number } {
    let skipped = this.skipped;
    let tail = this.tail;
    if (tail.length > TAIL_CHARS) {
      skipped += tail.length - TAIL_CHARS;
      tail = tail.slice(-TAIL_CHARS);
    }
    const text = skipped > 0 ? `${this.head}\n[... ${skipped} characters not shown; the job's log has them ...]\n${tail}` : this.head + tail;
    this.head = "";
    this.tail = "";
    this.skipped = 0;
    return { text, skipped };
  }
}
