// The /settings screen's view of the schema (settings-catalog.ts), the in-place reload that lets a
// running session follow a change, the gate's per-tool policy and the bash interceptor's rules.
import { describe, expect, test } from "bun:test";
import { assignInPlace } from "../../../core/config/merge.ts";
import { settingCatalog } from "../../../core/config/settings-catalog.ts";
import { settingKeys } from "../../../core/config/settings-keys.ts";
import type { ToolPolicy } from "../../../core/config/settings-schema.ts";
import { ApprovalGate, type ApprovalRequest } from "../../../core/tools/approval.ts";
import { interceptBash } from "../../../core/tools/bash-interceptor.ts";

describe("settings catalog", () => {
  test("every key of the schema, in its order, with kind, choices, range, default and description", () => {
    const catalog = settingCatalog();
    expect(catalog.map((info) => info.key)).toEqual(settingKeys());
    const byKey = new Map(catalog.map((info) => [info.key, info]));
    expect(byKey.get("thinking")).toMatchObject({ kind: "enum", default: "medium", live: false, userOnly: false, description: "Reasoning effort for models that support it." });
    expect(byKey.get("thinking")!.choices).toContain("high");
    expect(byKey.get("read.defaultLimit")).toMatchObject({ kind: "number", range: "whole number 1 to 100000", default: 2000, live: true });
    expect(byKey.get("tools.approval")).toMatchObject({ kind: "map", choices: ["allow", "ask", "deny", "prompt"], live: true });
    expect(byKey.get("sandbox.mode")).toMatchObject({ kind: "enum", userOnly: true });
    expect(byKey.get("auth.broker.token")).toMatchObject({ kind: "string", userOnly: true, default: undefined });
    expect(byKey.get("compaction.enabled")).toMatchObject({ kind: "boolean", default: true });
  });

  test("the settings called live are real keys (a renamed one must not silently stop applying at once)", () => {
    const live = settingCatalog().filter((info) => info.live).map((info) => info.key);
    expect(live).toEqual(expect.arrayContaining(["tools.approval", "read.defaultLimit", "bashInterceptor.enabled", "compaction.thresholdPercent"]));
  });
});

describe("assignInPlace", () => {
  test("nested mappings stay the same objects, with the new values; removed keys go", () => {
    const compaction = { enabled: true, reserveTokens: 1, thresholdPercent: -1 };
    const approval: Record<string, string> = { bash: "deny", write: "ask" };
    const target = { compaction, tools: { approval, disabled: ["a"] }, model: "x" } as Record<string, unknown>;
    assignInPlace(target, { compaction: { enabled: true, reserveTokens: 1, thresholdPercent: 50 }, tools: { approval: { bash: "allow" }, disabled: [] } });
    expect(target.compaction).toBe(compaction);
    expect(compaction.thresholdPercent).toBe(50);
    expect((target.tools as { approval: unknown }).approval).toBe(approval);
    expect(approval).toEqual({ bash: "allow" });
    expect(target).not.toHaveProperty("model");
  });
});

describe("tools.approval in the gate", () => {
  const setup = (mode: "yolo" | "always-ask", policy: Record<string, ToolPolicy>, answer = true) => {
    const asked: ApprovalRequest[] = [];
    const gate = new ApprovalGate(mode, async (request) => (asked.push(request), { allow: answer }), undefined, (tool) => policy[tool]);
    return { gate, asked };
  };

  test("deny refuses naming the setting; ask and prompt ask in yolo; allow settles always-ask", async () => {
    const { gate, asked } = setup("yolo", { bash: "deny", write: "ask", edit: "prompt" });
    expect(gate.refusal("bash")).toContain("the setting tools.approval.bash is deny");
    expect(await gate.check({ name: "bash", effect: "exec" }, { command: "ls" })).toEqual({ allow: false, message: gate.refusal("bash")! });
    expect(await gate.check({ name: "write", effect: "write" }, { path: "a" })).toEqual({ allow: true });
    expect(await gate.check({ name: "edit", effect: "write" }, { path: "a" })).toEqual({ allow: true });
    expect(asked.map((request) => request.summary)).toEqual(["a (tools.approval.write is ask)", "a (tools.approval.edit is ask)"]);
    expect(gate.alwaysAsks("write")).toBe(true);
    expect(gate.alwaysAsks("read")).toBe(false);
    expect(await gate.check({ name: "read", effect: "read" }, { path: "a" })).toEqual({ allow: true });

    const strict = setup("always-ask", { bash: "allow" });
    expect(await strict.gate.check({ name: "bash", effect: "exec" }, { command: "make" })).toEqual({ allow: true });
    expect(strict.asked).toEqual([]);
    expect(await strict.gate.check({ name: "read", effect: "read" }, { path: "a" })).toEqual({ allow: true });
    expect(strict.asked).toHaveLength(1);
  });

  test("ask asks again after an 'always' answer; without anyone to ask it is refused, saying why", async () => {
    const asked: ApprovalRequest[] = [];
    const gate = new ApprovalGate("yolo", async (request) => (asked.push(request), { allow: true, remember: true }), undefined, () => "ask");
    await gate.check({ name: "bash", effect: "exec" }, { command: "ls" });
    await gate.check({ name: "bash", effect: "exec" }, { command: "ls" });
    expect(asked).toHaveLength(2);
    const nobody = new ApprovalGate("yolo", undefined, undefined, () => "ask");
    const outcome = await nobody.check({ name: "bash", effect: "exec" }, { command: "ls" });
    expect(outcome.allow).toBe(false);
    expect(!outcome.allow && outcome.message).toContain("the setting tools.approval.bash is ask, and there is nobody to ask");
  });
});

describe("bash interceptor", () => {
  const all = () => true;
  test.each([
    ["cat README.md", "read"],
    ["cd src && head -n 5 a.ts", "read"],
    ["grep -rn TODO src", "grep"],
    ["rg foo", "grep"],
    ["find . -name '*.ts'", "find"],
    ["sed -i 's/a/b/' f.txt", "edit"],
    ["echo hi > out.txt", "write"],
    ["cat > f.txt <<'EOF'\nhello\nEOF", "write"],
  ])("%p is refused, pointing to %s", (command, tool) => {
    expect(interceptBash(command, all)).toContain(`use the ${tool} tool instead`);
  });

  test.each(["cat a | jq .", "grep -c x f && make", "npm test", "ls -la", "sed 's/a/b/' f", "echo x > /dev/null", "echo hi"])("%p runs", (command) => {
    expect(interceptBash(command, all)).toBeUndefined();
  });

  test("only when the session has the tool to point to", () => {
    expect(interceptBash("cat README.md", (tool) => tool !== "read")).toBeUndefined();
  });
});
