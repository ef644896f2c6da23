import type { EditMode } from "../../config/settings-schema.ts";

/**
 * Which edit format a model gets: its models.yml `editMode`, else the `edit.mode` setting, else
 * by family — GPT and Codex models are trained on apply_patch, every other model gets the replace edit.
 */
export function editModeFor(model: { id: string; provider: string }, setting: EditMode | undefined, perModel: EditMode | undefined): EditMode {
  if (perModel) return perModel;
  if (setting) return setting;
  return /(^|[/:._-])(gpt|codex|o[1-9])([-._:]|$)/i.test(model.id) ? "apply_patch" : "replace";
}
