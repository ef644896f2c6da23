import { z } from "zod";
import { THINKING_CONTROLS, THINKING_OFF } from "../ai/model.ts";
import { Api } from "../ai/model-schema.ts";
import { providerProblems } from "./models-rules.ts";
import { EditMode } from "./settings-schema.ts";

/**
 * models.yml: custom providers and models, and overrides of built-in providers' endpoint, key or
 * headers. Validated in two steps: the shape of each file on its own, then the rules that need the
 * merged view (a project file may add models to a provider whose baseUrl the global file sets).
 */

const Headers = z.record(z.string(), z.string());

export const ModelEntry = z.strictObject({
  /** The id sent to the provider. */
  id: z.string().min(1),
  name: z.string().min(1).optional(),
  /** Defaults to the provider's `api`. */
  api: Api.optional(),
  reasoning: z.boolean().optional(),
  input: z.array(z.enum(["text", "image"])).min(1).optional(),
  /** US dollars per million tokens. */
  cost: z
    .strictObject({
      input: z.number().nonnegative(),
      output: z.number().nonnegative(),
      cacheRead: z.number().nonnegative().optional(),
      cacheWrite: z.number().nonnegative().optional(),
    })
    .optional(),
  contextWindow: z.number().int().positive().optional(),
  maxTokens: z.number().int().positive().optional(),
  headers: Headers.optional(),
  /** The edit format this model gets, over the `edit.mode` setting. */
  editMode: EditMode.optional(),
  /**
   * How the model takes its thinking level (see THINKING_CONTROLS and THINKING_OFF in
   * core/ai/model.ts). Absent: the built-in model of the same id and api's, else the api's usual.
   */
  thinking: z
    .strictObject({
      control: z.enum(THINKING_CONTROLS),
      efforts: z.array(z.string().min(1)).min(1).optional(),
      off: z.enum(THINKING_OFF).optional(),
      fixedSampling: z.boolean().optional(),
    })
    .optional(),
});
export type ModelEntry = z.infer<typeof ModelEntry>;

const ProviderShape = z.strictObject({
  baseUrl: z.url({ protocol: /^https?$/ }).optional(),
  /** The name of an environment variable holding the key, the key itself, or `!command` printing it. */
  apiKey: z.string().min(1).optional(),
  api: Api.optional(),
  headers: Headers.optional(),
  /** `none` for keyless local servers; `oauth`, the original omp's, still needs `apiKey` there and here. */
  auth: z.enum(["apiKey", "none", "oauth"]).optional(),
  models: z.array(ModelEntry).optional(),
});
export type ProviderEntry = z.infer<typeof ProviderShape>;

const Provider = ProviderShape.superRefine((provider, ctx) => {
  for (const problem of providerProblems(provider)) ctx.addIssue({ code: "custom", ...problem });
});

/** One models.yml as written. */
const ModelRoles = z.record(z.string().min(1), z.string().min(1)).optional();
export const ModelsFileShape = z.strictObject({ providers: z.record(z.string(), ProviderShape).default({}), modelRoles: ModelRoles });
/** The merged models.yml files, with the rules that make a provider usable. */
export const ModelsFile = z.strictObject({ providers: z.record(z.string(), Provider).default({}), modelRoles: ModelRoles });
export type ModelsConfig = z.infer<typeof ModelsFile>;
