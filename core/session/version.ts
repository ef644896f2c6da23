/**
 * The session file format's version, written in every header. Its own module so that the writer
 * can stamp headers without loading the zod schemas that only reading a session needs.
 */
export const SESSION_VERSION = 3;
