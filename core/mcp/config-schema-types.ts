/** Where a server's entry came from; project and plugin entries obey folder trust. */
export type ServerScope = "user" | "project" | "flag" | "plugin";
