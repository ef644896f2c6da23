// The interactive mode (tmux) in broker mode follows the broker live: a key added on the broker
// while the session runs is the one the next model choice uses, without a restart.
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { runOmp, tempDir } from "../support/omp.ts";
import { startBroker, stopBrokers } from "../support/broker.ts";
import { readySessions } from "../support/tty-session.ts";

afterAll(stopBrokers);

setDefaultTimeout(60_000);
const ready = readySessions();

describe("interactive mode in broker mode", () => {
  test("a key added on the broker after the session started is used by the next /model choice", async () => {
    const brokerHome = tempDir("omp-broker-");
    // The broker holds a key for another provider only, so the session starts on the environment's key.
    expect((await runOmp(["auth", "add", "openai", "--key", "sk-proj-brokerotherproviderbrokerother0001"], { home: brokerHome })).code).toBe(0);
    const broker = await startBroker(brokerHome);
    const s = await ready({ script: [{ text: "first answer" }, { text: "second answer" }], env: { OMP_AUTH_BROKER_URL: broker.url, OMP_AUTH_BROKER_TOKEN: broker.token } });
    s.tty.type("hello");
    s.tty.press("Enter");
    await s.tty.waitFor("first answer");
    await s.tty.waitFor((screen) => !screen.includes("esc to interrupt"));
    expect(s.standin.requests.at(-1)!.headers["x-api-key"]).toBe("sk-ant-test-key-0123456789");

    const added = "sk-ant-api03-addedwhilerunningaddedwhilerunning01";
    const response = await fetch(`${broker.url}/v1/credential`, {
      method: "POST",
      headers: { authorization: `Bearer ${broker.token}`, "content-type": "application/json" },
      body: JSON.stringify({ provider: "anthropic", credential: { type: "api_key", key: added } }),
    });
    expect(response.status).toBe(200);
    // Stored credentials come before the environment's key: once the stream brings it, a model choice takes it.
    await Bun.sleep(500);
    s.tty.type("/model");
    s.tty.press("Enter");
    await s.tty.waitFor("filter:");
    s.tty.type("opus-4-5");
    await s.tty.waitFor("(1 of");
    s.tty.press("Enter");
    await s.tty.waitFor("Model: anthropic/claude-opus-4-5");
    s.tty.type("again");
    s.tty.press("Enter");
    await s.tty.waitFor("second answer");
    expect(s.standin.requests.at(-1)!.headers["x-api-key"]).toBe(added);
    expect(s.tty.screen()).not.toContain(added);
  });
});
