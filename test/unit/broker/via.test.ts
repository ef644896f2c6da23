// The ssh command behind `omp auth-broker login --via`: an argument vector, never a shell string
// built from what the user typed; the callback port tunnelled, and moved on both ends together.
import { describe, expect, test } from "bun:test";
import { oauthProvider } from "../../../core/auth/oauth/providers.ts";
import { parseVia, viaCommand } from "../../../core/broker/via.ts";

const anthropic = oauthProvider("anthropic")!;
const copilot = oauthProvider("github-copilot")!;

describe("--via", () => {
  test("user@host, host, user@host:port and bracketed IPv6", () => {
    expect(parseVia("me@broker.example")).toEqual({ destination: "me@broker.example" });
    expect(parseVia("broker")).toEqual({ destination: "broker" });
    expect(parseVia("me@10.0.0.5:2222")).toEqual({ destination: "me@10.0.0.5", port: 2222 });
    expect(parseVia("me@[::1]:22")).toEqual({ destination: "me@::1", port: 22 });
  });

  test("anything that could become an ssh option or a shell word is refused", () => {
    for (const bad of ["-oProxyCommand=id", "me@-oProxyCommand=id", "me@host;id", "me@host:0", "me@host:70000", "me@host me2@host", "", "me@$(id)"]) {
      expect(() => parseVia(bad)).toThrow("--via takes user@host or user@host:port");
    }
  });

  test("the provider's callback port is tunnelled to the same port; the destination follows `--`", () => {
    expect(viaCommand(anthropic, "me@broker:2200", { env: {} })).toEqual([
      "ssh", "-L", "54545:127.0.0.1:54545", "-o", "ExitOnForwardFailure=yes", "-p", "2200", "--", "me@broker", "omp", "auth-broker", "login", "anthropic",
    ]);
  });

  test("a callback port moved here is moved on the broker host too; OMP_SSH_OPTIONS adds words, not shell", () => {
    const argv = viaCommand(anthropic, "me@broker", { env: { OMP_OAUTH_ANTHROPIC_CALLBACK_PORT: "40123", OMP_SSH_OPTIONS: "-F /tmp/my config" }, tty: true });
    expect(argv).toEqual([
      "ssh", "-t", "-L", "40123:127.0.0.1:40123", "-o", "ExitOnForwardFailure=yes", "-F", "/tmp/my", "config", "--", "me@broker",
      "env", "OMP_OAUTH_ANTHROPIC_CALLBACK_PORT=40123", "omp", "auth-broker", "login", "anthropic",
    ]);
  });

  test("a device-code login has no callback to tunnel", () => {
    expect(viaCommand(copilot, "me@broker", { env: {} })).toEqual(["ssh", "--", "me@broker", "omp", "auth-broker", "login", "github-copilot"]);
  });
});
