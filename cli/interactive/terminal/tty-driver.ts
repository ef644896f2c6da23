import { dlopen, FFIType } from "bun:ffi";

/**
 * The TTY underneath the terminal layer: raw mode, the window size, input and resize events.
 * Through libc (termios and ioctl over bun:ffi) where omp knows the ABI: about 1 ms, where
 * creating `process.stdin` loads Node's stream machinery and costs ~20 ms of start-up. Node's
 * tty streams remain the fallback elsewhere.
 */
export interface TtyDriver {
  readonly columns: number;
  readonly rows: number;
  /** Raw mode on; from now on every read goes to `onData`. */
  open(onData: (text: string) => void): void;
  onResize(listener: () => void): () => void;
  /** The mode omp found, for a shell while omp is suspended; reading stays set up. */
  pause(): void;
  /** Raw mode again after {@link pause}. */
  resume(): void;
  /** The mode omp found, and no more reading. Safe to call twice. */
  close(): void;
}

interface Abi {
  library: string;
  winsizeRequest: number;
  /** Where c_oflag sits in struct termios, and the bits that turn "\n" into "\r\n" on output. */
  oflagOffset: number;
  outputPostProcessing: number;
}

const ABIS: Partial<Record<NodeJS.Platform, Abi>> = {
  linux: { library: "libc.so.6", winsizeRequest: 0x5413, oflagOffset: 4, outputPostProcessing: 0o1 | 0o4 },
  darwin: { library: "/usr/lib/libSystem.B.dylib", winsizeRequest: 0x40087468, oflagOffset: 8, outputPostProcessing: 0x1 | 0x2 },
};

const TCSANOW = 0;

export function openTty(): TtyDriver {
  return libcTty() ?? nodeTty();
}

function libcTty(): TtyDriver | undefined {
  const abi = ABIS[process.platform];
  if (!abi) return undefined;
  let libc;
  try {
    libc = dlopen(abi.library, {
      tcgetattr: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      tcsetattr: { args: [FFIType.i32, FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
      cfmakeraw: { args: [FFIType.ptr], returns: FFIType.void },
      ioctl: { args: [FFIType.i32, FFIType.u64, FFIType.ptr], returns: FFIType.i32 },
    });
  } catch {
    // Another libc (musl) or no dynamic loading: Node's tty streams do the job.
    return undefined;
  }
  const { tcgetattr, tcsetattr, cfmakeraw, ioctl } = libc.symbols;
  // Larger than struct termios on any platform listed above.
  const saved = new Uint8Array(256);
  if (tcgetattr(0, saved) !== 0) return undefined;
  const winsize = new Uint16Array(4);
  const size = () => {
    if (ioctl(1, abi.winsizeRequest, winsize) !== 0 && ioctl(0, abi.winsizeRequest, winsize) !== 0) return { rows: 24, columns: 80 };
    return { rows: winsize[0] || 24, columns: winsize[1] || 80 };
  };
  let current = size();
  let reader: { cancel(): Promise<void> } | undefined;
  let raw = false;
  let rawMode: Uint8Array | undefined;
  const refresh = () => (current = size());
  process.on("SIGWINCH", refresh);
  return {
    get columns() {
      return current.columns;
    },
    get rows() {
      return current.rows;
    },
    open(onData) {
      const mode = saved.slice();
      cfmakeraw(mode);
      // Raw input, but output keeps "\n" → "\r\n", as Node's raw mode does: stray output stays readable.
      const view = new DataView(mode.buffer);
      view.setUint32(abi.oflagOffset, view.getUint32(abi.oflagOffset, true) | abi.outputPostProcessing, true);
      tcsetattr(0, TCSANOW, mode);
      rawMode = mode;
      raw = true;
      const decoder = new TextDecoder();
      const stream = Bun.stdin.stream().getReader();
      reader = stream;
      void (async () => {
        for (;;) {
          const { done, value } = await stream.read();
          if (done) return;
          onData(decoder.decode(value, { stream: true }));
        }
      })().catch(() => {
        // The terminal went away; SIGHUP tells the app.
      });
    },
    onResize(listener) {
      // Registered after `refresh`, so the new size is known when the listener runs.
      process.on("SIGWINCH", listener);
      return () => process.off("SIGWINCH", listener);
    },
    pause() {
      if (raw) tcsetattr(0, TCSANOW, saved);
    },
    resume() {
      if (raw && rawMode) tcsetattr(0, TCSANOW, rawMode);
      // The window may have changed size while omp was stopped, without a SIGWINCH reaching it.
      refresh();
    },
    close() {
      process.off("SIGWINCH", refresh);
      if (raw) tcsetattr(0, TCSANOW, saved);
      raw = false;
      void reader?.cancel().catch(() => {});
      reader = undefined;
    },
  };
}

function nodeTty(): TtyDriver {
  const input = process.stdin;
  const output = process.stdout;
  let listener: ((chunk: Buffer | string) => void) | undefined;
  let raw = false;
  return {
    get columns() {
      return output.columns || 80;
    },
    get rows() {
      return output.rows || 24;
    },
    open(onData) {
      const decoder = new TextDecoder();
      listener = (chunk) => onData(typeof chunk === "string" ? chunk : decoder.decode(chunk, { stream: true }));
      input.setRawMode(true);
      raw = true;
      input.on("data", listener);
      input.resume();
    },
    onResize(resize) {
      output.on("resize", resize);
      return () => output.off("resize", resize);
    },
    pause() {
      if (raw) input.setRawMode(false);
    },
    resume() {
      if (raw) input.setRawMode(true);
    },
    close() {
      if (listener) input.off("data", listener);
      listener = undefined;
      if (raw) {
        try {
          input.setRawMode(false);
        } catch {
          // A closed TTY has no mode to restore.
        }
      }
      raw = false;
      input.pause();
    },
  };
}
