import pkg from "../package.json" with { type: "json" };

/** The omp release this code belongs to; also the stamp the native addon must carry. */
export const VERSION: string = pkg.version;
