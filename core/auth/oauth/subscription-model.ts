import type { Model } from "../../ai/model.ts";
import { getProvider } from "../../ai/providers-table.ts";
import type { Credential } from "../credential.ts";

/**
 * The model as this credential must reach it: a Copilot login on a business or enterprise plan is
 * served from the API host its token names, unless the user moved the provider's base URL
 * themselves (environment or models.yml).
 */
export function modelForCredential(model: Model, credential: Credential | undefined): Model {
  if (credential?.type !== "oauth" || !credential.apiBase) return model;
  if (model.baseUrl !== getProvider(model.provider)?.baseUrl) return model;
  return { ...model, baseUrl: credential.apiBase };
}
