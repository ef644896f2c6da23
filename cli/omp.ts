#!/usr/bin/env bun
// Entry point when running from source (`bun cli/omp.ts`); the compiled binary enters through the
// entry that embed/build.ts generates, which registers the embedded natives first.
import { main } from "./main.ts";

await main(process.argv.slice(2));
