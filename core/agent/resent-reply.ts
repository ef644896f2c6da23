import type { AssistantDelta } from "./events.ts";

interface Part {
  kind: "text" | "thinking" | "toolcall";
  started: boolean;
  text: string;
  ended: boolean;
}

/**
 * A reply the provider broke off and that is asked for again from the start: what the front ends
 * were shown is not shown twice. While the new attempt repeats it, its deltas are held back; once it
 * goes past it, only the rest is passed on. A new attempt that says something else cannot be joined
 * to what was shown: `filter` then answers "diverged" and the caller shows it as a new reply.
 */
export class ResentReply {
  /** What the front ends were shown, per content index. */
  private readonly shown = new Map<number, Part>();
  /** The new attempt so far, per content index; undefined until the provider starts again. */
  private again: Map<number, Part> | undefined;

  /** A delta passed on to the front ends. */
  record(delta: AssistantDelta): void {
    apply(this.shown, delta);
  }

  /** The provider starts the reply again: later deltas go through `filter`. */
  restart(): void {
    this.again = new Map();
  }

  /** What of this delta to pass on (undefined: nothing), or "diverged" when the new attempt says something else. */
  filter(delta: AssistantDelta): AssistantDelta | undefined | "diverged" {
    if (!this.again) {
      this.record(delta);
      return delta;
    }
    const now = apply(this.again, delta);
    const before = this.shown.get(delta.contentIndex);
    if (!before) {
      this.record(delta);
      return delta;
    }
    if (before.kind !== now.kind) return "diverged";
    switch (delta.type) {
      case "text_start":
      case "thinking_start":
      case "toolcall_start":
        return before.started ? undefined : (this.record(delta), delta);
      case "text_end":
      case "thinking_end":
      case "toolcall_end":
        if (now.text.length < before.text.length) return "diverged";
        return before.ended ? undefined : (this.record(delta), delta);
      default: {
        // Only this delta's characters are compared: those before it were when they came (linear, not
        // quadratic, in a long resent reply).
        const start = now.text.length - delta.delta.length;
        const overlap = Math.min(now.text.length, before.text.length) - start;
        if (overlap > 0 && before.text.slice(start, start + overlap) !== delta.delta.slice(0, overlap)) return "diverged";
        if (now.text.length <= before.text.length) return undefined;
        // Past what was shown: only the rest of this delta.
        before.text = now.text;
        return { ...delta, delta: delta.delta.slice(Math.max(0, overlap)) };
      }
    }
  }

  /** The new attempt so far, as deltas from nothing: what a front end shows of it as a new reply. */
  replay(): AssistantDelta[] {
    const deltas: AssistantDelta[] = [];
    for (const [contentIndex, part] of this.again ?? []) {
      if (part.kind === "toolcall") continue;
      deltas.push({ type: part.kind === "text" ? "text_start" : "thinking_start", contentIndex });
      if (part.text) deltas.push({ type: part.kind === "text" ? "text_delta" : "thinking_delta", contentIndex, delta: part.text });
      if (part.ended) deltas.push({ type: part.kind === "text" ? "text_end" : "thinking_end", contentIndex });
    }
    return deltas;
  }
}

function apply(parts: Map<number, Part>, delta: AssistantDelta): Part {
  const kind = delta.type.startsWith("text") ? "text" : delta.type.startsWith("thinking") ? "thinking" : "toolcall";
  let part = parts.get(delta.contentIndex);
  if (!part) parts.set(delta.contentIndex, (part = { kind, started: false, text: "", ended: false }));
  if (delta.type.endsWith("_start")) part.started = true;
  else if (delta.type.endsWith("_end")) part.ended = true;
  else if ("delta" in delta) part.text += delta.delta;
  return part;
}
