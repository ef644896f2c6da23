import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { loadSession } from "../../../core/session/loader.ts";
import { prepareForDisk } from "../../../core/session/persist.ts";
import { REDACTED, Redactor } from "../../../core/session/redact.ts";
import { SessionWriter } from "../../../core/session/writer.ts";
import { scratchDir } from "../config/scratch.ts";
import { assistant, user } from "./fixtures.ts";

const ANTHROPIC = "sk-ant-api03-Xq7vT2mK9pL4wR8sN1bY6cZ3hJ5fG0dAa1b2c3d4";
const OPENAI = "sk-proj-4fH8kLm2Np9Qr5St7Uv1Wx3Yz6Ab0Cd";
const GOOGLE = "AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q";
const GITHUB = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
const CUSTOM = "corp-internal-token-7781";

describe("Redactor", () => {
  test("replaces the known secrets it is given, longest first, and ignores very short ones", () => {
    const redactor = new Redactor([CUSTOM, `${CUSTOM}-extended`, "abc"]);
    expect(redactor.redact(`a ${CUSTOM}-extended b ${CUSTOM} c abc`)).toBe(`a ${REDACTED} b ${REDACTED} c abc`);
  });

  test("replaces token shapes nobody declared", () => {
    const redactor = new Redactor();
    expect(redactor.redact(`export ANTHROPIC_API_KEY=${ANTHROPIC}`)).toBe(`export ANTHROPIC_API_KEY=${REDACTED}`);
    expect(redactor.redact(`"${OPENAI}"`)).toBe(`"${REDACTED}"`);
    expect(redactor.redact(`key=${GOOGLE};`)).toBe(`key=${REDACTED};`);
    expect(redactor.redact(`token ${GITHUB}`)).toBe(`token ${REDACTED}`);
    expect(redactor.redact("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc")).toBe(`Authorization: Bearer ${REDACTED}`);
    expect(redactor.redact("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----")).toBe(
      `-----BEGIN OPENSSH PRIVATE KEY-----\n${REDACTED}\n-----END OPENSSH PRIVATE KEY-----`,
    );
  });

  test("replaces every token shape, whatever the case of the words around it", () => {
    const redactor = new Redactor();
    const shapes = [
      "github_pat_11ABCDEFG0123456789abcdefghijklmnopqrstuvwxyz",
      "AKIAIOSFODNN7EXAMPLE",
      "ASIAIOSFODNN7EXAMPLE",
      "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
      "gho_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    ];
    for (const shape of shapes) expect(redactor.redact(`x ${shape} y`)).toBe(`x ${REDACTED} y`);
    expect(redactor.redact("authorization: bearer abcdefghijklmnop1234")).toBe(`authorization: bearer ${REDACTED}`);
    expect(redactor.redact("-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----")).toBe(`-----BEGIN RSA PRIVATE KEY-----\n${REDACTED}\n-----END RSA PRIVATE KEY-----`);
  });

  test("leaves ordinary text alone", () => {
    const redactor = new Redactor();
    const prose = "task-runner-configuration-file, sk-learn-style-hyphenated-words, a Bearer token is sent, AIza short, ghp_short";
    expect(redactor.redact(prose)).toBe(prose);
  });
});

describe("prepareForDisk", () => {
  test("redacts nested strings but leaves signatures, provider data and image data byte for byte", () => {
    // Token-shaped, so it would be replaced anywhere readable.
    const opaque = GOOGLE;
    const value = {
      content: [
        { type: "thinking", thinking: `the key is ${OPENAI}`, signature: opaque },
        { type: "toolCall", id: "t1", name: "bash", arguments: { command: `curl -H 'x-api-key: ${ANTHROPIC}'` }, providerData: opaque },
        { type: "image", data: opaque, mimeType: "image/png" },
        { type: "text", text: opaque },
      ],
    };
    const prepared = prepareForDisk(value, new Redactor());
    expect(prepared.content[0]).toEqual({ type: "thinking", thinking: `the key is ${REDACTED}`, signature: opaque });
    expect(prepared.content[1]!.arguments).toEqual({ command: `curl -H 'x-api-key: ${REDACTED}'` });
    expect(prepared.content[1]!.providerData).toBe(opaque);
    expect(prepared.content[2]!.data).toBe(opaque);
    expect(prepared.content[3]!.text).toBe(REDACTED);
    expect(value.content[0]!.thinking).toBe(`the key is ${OPENAI}`);
  });
});

describe("session files never contain secrets", () => {
  test("keys in use and token shapes are redacted in every entry and the header", () => {
    const root = scratchDir("omp-redact-");
    const writer = SessionWriter.create({
      cwd: join(root, "project"),
      sessionDir: join(root, "sessions"),
      title: `debug ${CUSTOM}`,
      secrets: [CUSTOM, ANTHROPIC],
    });
    writer.append({ type: "message", message: user(`my key is ${ANTHROPIC} and the corp one ${CUSTOM}`) });
    const reply = assistant(`use ${OPENAI}`, "toolUse");
    reply.content.push({ type: "toolCall", id: "c1", name: "bash", arguments: { command: `echo ${GITHUB}`, env: { TOKEN: CUSTOM } } });
    writer.append({ type: "message", message: reply });
    writer.append({ type: "custom", customType: "state", data: { nested: [{ auth: `Bearer ${"z".repeat(40)}` }] } });
    writer.close();

    const text = readFileSync(writer.path, "utf8");
    for (const secret of [ANTHROPIC, OPENAI, GITHUB, CUSTOM, "z".repeat(40)]) expect(text).not.toContain(secret);
    expect(text.split(REDACTED).length - 1).toBe(7);
    const loaded = loadSession(writer.path);
    expect(loaded.problems).toEqual([]);
    expect(loaded.header.title).toBe(`debug ${REDACTED}`);
  });
});
