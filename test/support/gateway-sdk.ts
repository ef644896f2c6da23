import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { type GatewayProcess, gatewayHome, startGatewayProcess, writeUpstreamModels } from "./gateway.ts";
import { type Standin, startStandin } from "./standin/index.ts";

/** A gateway in front of the stand-in's four upstreams, with the official SDKs pointed at it. */
export interface SdkGateway {
  standin: Standin;
  gateway: GatewayProcess;
  anthropic: Anthropic;
  openai: OpenAI;
  close(): Promise<void>;
}

export async function startSdkGateway(): Promise<SdkGateway> {
  const standin = await startStandin();
  const home = gatewayHome();
  writeUpstreamModels(home, standin.url);
  const gateway = await startGatewayProcess(home);
  // No SDK retries: each test sees the gateway's first answer.
  const anthropic = new Anthropic({ baseURL: gateway.url, apiKey: gateway.token, maxRetries: 0 });
  const openai = new OpenAI({ baseURL: `${gateway.url}/v1`, apiKey: gateway.token, maxRetries: 0 });
  return {
    standin,
    gateway,
    anthropic,
    openai,
    async close() {
      await gateway.stop();
      await standin.close();
    },
  };
}

/** The error a request fails with; a request that succeeds fails the test. */
export async function caught(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the request to fail");
}
