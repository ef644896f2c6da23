/**
 * A request's route by method and path, for the broker and the gateway: paths are literal but for
 * `:name` segments, which match one segment and come back in `params`.
 */
export type RouteHandler<C> = (request: Request, params: Record<string, string>, context: C) => Response | Promise<Response>;

interface Route<C> {
  method: string;
  pattern: RegExp;
  names: string[];
  handler: RouteHandler<C>;
}

export class Router<C = undefined> {
  private readonly routes: Route<C>[] = [];

  on(method: string, path: string, handler: RouteHandler<C>): this {
    const names: string[] = [];
    const source = path
      .split("/")
      .map((segment) => {
        if (!segment.startsWith(":")) return segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
        names.push(segment.slice(1));
        return "([^/]+)";
      })
      .join("/");
    this.routes.push({ method, pattern: new RegExp(`^${source}$`), names, handler });
    return this;
  }

  get(path: string, handler: RouteHandler<C>): this {
    return this.on("GET", path, handler);
  }

  post(path: string, handler: RouteHandler<C>): this {
    return this.on("POST", path, handler);
  }

  /** The route for `method` and `path` (already normalised by the caller) with its handler bound, or undefined. */
  match(method: string, path: string): ((request: Request, context: C) => Response | Promise<Response>) | undefined {
    for (const route of this.routes) {
      if (route.method !== method) continue;
      const found = route.pattern.exec(path);
      if (!found) continue;
      let params: Record<string, string>;
      try {
        params = Object.fromEntries(route.names.map((name, index) => [name, decodeURIComponent(found[index + 1]!)]));
      } catch {
        continue; // A malformed %-escape: no route of ours.
      }
      return (request, context) => route.handler(request, params, context);
    }
    return undefined;
  }
}
