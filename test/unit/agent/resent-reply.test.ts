import { describe, expect, test } from "bun:test";
import { ResentReply } from "../../../core/agent/resent-reply.ts";
import type { AssistantDelta } from "../../../core/agent/events.ts";

const text = (delta: string, contentIndex = 0): AssistantDelta => ({ type: "text_delta", contentIndex, delta });

describe("a reply asked for again after it broke off", () => {
  test("the repeat of what was shown is held back and only the rest passes", () => {
    const resent = new ResentReply();
    resent.filter({ type: "text_start", contentIndex: 0 });
    resent.filter(text("Hello, wor"));
    resent.restart();
    expect(resent.filter({ type: "text_start", contentIndex: 0 })).toBeUndefined();
    expect(resent.filter(text("Hello"))).toBeUndefined();
    expect(resent.filter(text(", world"))).toEqual(text("ld"));
    expect(resent.filter(text("!"))).toEqual(text("!"));
    expect(resent.filter({ type: "text_end", contentIndex: 0 })).toEqual({ type: "text_end", contentIndex: 0 });
  });

  test("a repeat that says something else diverges and replays from nothing", () => {
    const resent = new ResentReply();
    resent.filter({ type: "text_start", contentIndex: 0 });
    resent.filter(text("The first half"));
    resent.restart();
    resent.filter({ type: "text_start", contentIndex: 0 });
    expect(resent.filter(text("The whole"))).toBe("diverged");
    expect(resent.replay()).toEqual([{ type: "text_start", contentIndex: 0 }, text("The whole")]);
  });

  test("parts the first attempt never reached pass as they come", () => {
    const resent = new ResentReply();
    resent.filter({ type: "thinking_start", contentIndex: 0 });
    resent.filter({ type: "thinking_delta", contentIndex: 0, delta: "plan" });
    resent.restart();
    expect(resent.filter({ type: "thinking_delta", contentIndex: 0, delta: "plan" })).toBeUndefined();
    expect(resent.filter({ type: "thinking_end", contentIndex: 0 })).toEqual({ type: "thinking_end", contentIndex: 0 });
    expect(resent.filter({ type: "text_start", contentIndex: 1 })).toEqual({ type: "text_start", contentIndex: 1 });
    expect(resent.filter(text("answer", 1))).toEqual(text("answer", 1));
  });

  test("a repeat that matches at first and differs later diverges where it differs, even in a long reply", () => {
    const resent = new ResentReply();
    const shown = "line of the answer\n".repeat(5000);
    resent.filter({ type: "text_start", contentIndex: 0 });
    resent.filter(text(shown));
    resent.restart();
    resent.filter({ type: "text_start", contentIndex: 0 });
    for (let i = 0; i < shown.length - 19; i += 19) expect(resent.filter(text(shown.slice(i, i + 19)))).toBeUndefined();
    expect(resent.filter(text("line of the ANSWER\n"))).toBe("diverged");
  });
});
