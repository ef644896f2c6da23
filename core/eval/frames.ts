import { z } from "zod";

/** A MIME bundle as Jupyter shapes it: text/plain, image/png (base64), application/json, text/markdown... */
const bundle = z.record(z.string(), z.unknown());

/** What a kernel runner (runner.py, runner.js) says, one JSON object per line. */
const frameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("ready"), pid: z.number().optional() }).loose(),
  z.object({ type: z.literal("started"), id: z.string() }),
  z.object({ type: z.enum(["stdout", "stderr"]), id: z.string().nullable(), data: z.string() }),
  z.object({ type: z.enum(["display", "result"]), id: z.string().nullable(), bundle }),
  z.object({ type: z.literal("error"), id: z.string(), ename: z.string(), evalue: z.string(), traceback: z.array(z.string()) }),
  z.object({ type: z.literal("done"), id: z.string(), status: z.enum(["ok", "error"]), cancelled: z.boolean().optional() }).loose(),
]);

export type KernelFrame = z.infer<typeof frameSchema>;

/** One line of a runner's output as a frame; undefined for anything else (never trusted further). */
export function kernelFrame(line: string): KernelFrame | undefined {
  try {
    const parsed = frameSchema.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
