import { z } from "zod";

/** ssh.json as the original omp writes it, read leniently (core/ssh/hosts.ts). */
const port = z.union([z.int(), z.string().regex(/^\d+$/).transform(Number)]).pipe(z.int().min(1).max(65535));

/** One host as written; `user` and `key` are the sloppy spellings people use for `username` and `keyPath`. */
export const hostEntry = z.looseObject({
  host: z.string().trim().min(1),
  username: z.string().trim().min(1).optional(),
  user: z.string().trim().min(1).optional(),
  port: port.optional(),
  keyPath: z.string().trim().min(1).optional(),
  key: z.string().trim().min(1).optional(),
  description: z.string().optional(),
  compat: z.boolean().optional(),
});

export const hostsFile = z.looseObject({ hosts: z.record(z.string(), z.unknown()).optional() });

