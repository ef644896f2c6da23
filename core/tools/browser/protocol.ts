/** What omp and its browser driver (`omp __browser-driver`, driver.ts) say to each other, one JSON line each way per call. */

export type WaitUntil = "load" | "domcontentloaded" | "networkidle0" | "networkidle2";

export interface Viewport {
  width: number;
  height: number;
  scale?: number;
}

export type BrowserContent = { type: "text"; text: string } | { type: "image"; data: string; mimeType: string };

export type DriverRequest = { id: number; deadline: number } & (
  | { op: "open"; name: string; url?: string; viewport?: Viewport; waitUntil?: WaitUntil; dialogs?: "accept" | "dismiss" }
  | { op: "run"; name: string; code: string }
  | { op: "close"; name?: string; all?: boolean }
);

export interface DriverAnswer {
  id: number;
  /** Set when the call failed: what to tell the model. */
  error?: string;
  content: BrowserContent[];
  /** The tab's address and title after the call, when it is open. */
  url?: string;
  title?: string;
}

/** The first line the driver writes: its browser is up (or why not). */
export type DriverReady = { ready: true; version: string } | { ready: false; error: string };
