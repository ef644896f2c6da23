import type { BunPlugin } from "bun";
import { dirname, join } from "node:path";
import { declarationFiles } from "../core/tools/declarations/modules.ts";

/**
 * Gives the bundle core/tools/declarations/modules.ts as static imports of the folder's files:
 * the module finds them by reading its folder, which a compiled binary does not have.
 */
export const declarationsPlugin: BunPlugin = {
  name: "omp-tool-declarations",
  setup(builder) {
    builder.onLoad({ filter: /core[\\/]tools[\\/]declarations[\\/]modules\.ts$/ }, (args) => {
      const files = declarationFiles(dirname(args.path));
      const imports = files.map((file, index) => `import * as m${index} from ${JSON.stringify(join(dirname(args.path), file))};`);
      return { contents: `${imports.join("\n")}\nexport const DECLARATION_MODULES = [${files.map((_, index) => `m${index}`).join(", ")}];\n`, loader: "ts" };
    });
  },
};
