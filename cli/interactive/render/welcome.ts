import type { Model } from "../../../core/ai/model.ts";
import { displayPath } from "../../../core/paths.ts";
import { VERSION } from "../../../core/version.ts";
import { NoticeBlock, type View } from "./blocks.ts";
import { fitSpans, paint, spansToString, truncateText } from "./text.ts";
import type { Block } from "./transcript.ts";

/** The transcript's first block: version, model and folder, and the keys a newcomer needs. */
export function welcomeBlock(view: View, model: Model, cwd: string, interruptKey: () => string): Block {
  return new NoticeBlock(
    view,
    (width, theme) => [
      spansToString(
        fitSpans(
          [
            { text: "omp ", style: theme.fg("accent", "bold") },
            { text: `${VERSION}  `, style: theme.fg("dim") },
            { text: `${model.provider}/${model.id}  `, style: theme.fg("accent") },
            { text: displayPath(cwd), style: theme.fg("muted") },
          ],
          width,
        ),
      ),
      paint(truncateText(`/help for commands · ${interruptKey()} interrupts · ctrl+c twice quits`, width), theme.fg("dim")),
    ],
    false,
  );
}
