/**
 * Which job manager belongs to which session (its Agent), without loading the job code: the agent
 * ends its session's jobs through here, and only sessions that ran a command have a manager.
 */
export interface SessionJobs {
  /** Ends every running job; resolves when they are gone. */
  endAll(): Promise<void>;
}

const watchers = new Set<() => void>();

/** Front ends redraw on this: a job of any session started, ended or went to the background. */
export function watchSessionJobs(listener: () => void): () => void {
  watchers.add(listener);
  return () => watchers.delete(listener);
}

export function sessionJobsChanged(): void {
  for (const listener of watchers) listener();
}

const managers = new WeakMap<object, SessionJobs>();

export function sessionJobs<T extends SessionJobs>(owner: object, create: () => T): T {
  let manager = managers.get(owner) as T | undefined;
  if (!manager) {
    manager = create();
    managers.set(owner, manager);
  }
  return manager;
}

export function existingSessionJobs(owner: object): SessionJobs | undefined {
  return managers.get(owner);
}

/** The session is over: its jobs end with it. */
export async function endSessionJobs(owner: object): Promise<void> {
  await managers.get(owner)?.endAll();
}
