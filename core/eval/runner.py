# The eval tool's Python kernel: one retained process per session, speaking NDJSON over its stdin
# and a private copy of its stdout (the original omp's runner protocol). Plain python3 >= 3.8 is
# enough: rich display is the MIME-bundle dispatch IPython does, done here without Jupyter.
import ast, asyncio, base64, builtins, io, json, os, queue, sys, threading, traceback, _thread

_proto = os.fdopen(os.dup(1), "wb", buffering=0)
_proto_lock = threading.Lock()
_current = {"id": None, "busy": False}
_state_lock = threading.Lock()


def _send(frame):
    data = (json.dumps(frame, default=str) + "\n").encode("utf-8", "replace")
    with _proto_lock:
        _proto.write(data)


# Output written to fd 1 and 2 by anything (C code, subprocesses) is relayed as stream frames, so
# nothing but frames ever reaches the host's pipe.
_out_r, _out_w = os.pipe()
os.dup2(_out_w, 1)
os.dup2(_out_w, 2)


_SYNC = b"\x00omp-eval-sync\x00"
_synced = threading.Event()


def _whole(data):
    """How much of data ends on a whole UTF-8 character (a character cut at a read waits for its rest)."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte & 0xC0 != 0x80:
            need = 1 if byte < 0x80 else 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return len(data) if back >= need else len(data) - back
    return len(data)


def _relay():
    pending = b""
    while True:
        chunk = os.read(_out_r, 65536)
        if not chunk:
            return
        pending += chunk
        synced = _SYNC in pending
        pending = pending.replace(_SYNC, b"")
        cut = len(pending) if synced else _whole(pending)
        data, pending = pending[:cut], pending[cut:]
        if data:
            _send({"type": "stdout", "id": _current["id"], "data": data.decode("utf-8", "replace")})
        if synced:
            _synced.set()


def _drain():
    """Waits until what was written to fd 1 and 2 before now has been relayed (a subprocess's last lines)."""
    _synced.clear()
    try:
        os.write(_out_w, _SYNC)
    except OSError:
        return
    _synced.wait(2)


threading.Thread(target=_relay, daemon=True).start()


class _Stream(io.TextIOBase):
    def __init__(self, name):
        self.name = name

    def writable(self):
        return True

    def write(self, text):
        text = str(text)
        # In pieces: one huge print never makes a frame the host refuses.
        for start in range(0, len(text), 1 << 20):
            _send({"type": self.name, "id": _current["id"], "data": text[start:start + (1 << 20)]})
        return len(text)

    def isatty(self):
        return False


class _NoStdin(io.TextIOBase):
    def readable(self):
        return True

    def read(self, *args):
        raise RuntimeError("Kernel requested stdin; interactive input is not supported.")

    readline = read


sys.stdout = _Stream("stdout")
sys.stderr = _Stream("stderr")
sys.stdin = _NoStdin()
os.environ.setdefault("MPLBACKEND", "Agg")

_PNG = b"\x89PNG\r\n\x1a\n"


def _b64(data):
    return base64.b64encode(data).decode("ascii") if isinstance(data, (bytes, bytearray)) else data


def _bundle(value):
    """The MIME bundle of a value, as IPython's display formatter would make it."""
    bundle = {}
    method = getattr(value, "_repr_mimebundle_", None)
    if callable(method):
        try:
            made = method()
            if isinstance(made, tuple):
                made = made[0]
            if isinstance(made, dict):
                bundle.update(made)
        except Exception:
            pass
    for mime, name in (("image/png", "_repr_png_"), ("image/jpeg", "_repr_jpeg_"), ("text/markdown", "_repr_markdown_"), ("text/html", "_repr_html_"), ("application/json", "_repr_json_")):
        method = getattr(value, name, None)
        if mime not in bundle and callable(method):
            try:
                made = method()
            except Exception:
                made = None
            if made is not None:
                bundle[mime] = made
    if type(value).__name__ == "Figure" and hasattr(value, "savefig") and "image/png" not in bundle:
        buffer = io.BytesIO()
        value.savefig(buffer, format="png", bbox_inches="tight")
        bundle["image/png"] = buffer.getvalue()
    if isinstance(value, (bytes, bytearray)) and bytes(value[:8]) == _PNG:
        bundle["image/png"] = bytes(value)
    elif isinstance(value, dict) and value.get("type") == "image" and "data" in value:
        bundle[value.get("mimeType", "image/png")] = value["data"]
    elif isinstance(value, (dict, list)) and "application/json" not in bundle:
        try:
            json.dumps(value)
            bundle["application/json"] = value
        except (TypeError, ValueError):
            pass
    if "text/plain" not in bundle:
        bundle["text/plain"] = value if isinstance(value, str) else repr(value)
    for mime in ("image/png", "image/jpeg"):
        if mime in bundle:
            bundle[mime] = _b64(bundle[mime])
    return bundle


def display(*values):
    for value in values:
        _send({"type": "display", "id": _current["id"], "bundle": _bundle(value)})


def _flush_figures():
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return
    for number in pyplot.get_fignums():
        display(pyplot.figure(number))
        pyplot.close(number)


# The original omp's prelude helpers that touch files and the environment (inside the sandbox like all else).
def read(path, offset=None, limit=None):
    with open(os.path.expanduser(path), encoding="utf-8", errors="replace") as handle:
        text = handle.read()
    if offset is None and limit is None:
        return text
    start = max((offset or 1) - 1, 0)
    lines = text.splitlines(keepends=True)
    return "".join(lines[start:start + limit] if limit else lines[start:])


def write(path, content, mode="w"):
    path = os.path.expanduser(path)
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode, encoding="utf-8") as handle:
        handle.write(content)
    return path


def append(path, content):
    return write(path, content, "a")


def env(key=None, value=None):
    if key is None:
        return dict(os.environ)
    if value is not None:
        os.environ[key] = str(value)
    return os.environ.get(key)


_namespace = {"__name__": "__main__", "__builtins__": builtins, "display": display, "read": read, "write": write, "append": append, "env": env}
_loop = asyncio.new_event_loop()
asyncio.set_event_loop(_loop)
_FLAGS = getattr(ast, "PyCF_ALLOW_TOP_LEVEL_AWAIT", 0)
_count = 0


def _run(code, value):
    result = eval(code, _namespace)
    if asyncio.iscoroutine(result):
        result = _loop.run_until_complete(result)
    return result if value else None


def _execute(request):
    global _count
    _count += 1
    status, cancelled = "ok", False
    try:
        tree = ast.parse(request["code"], "<cell>", "exec")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        _run(compile(tree, "<cell>", "exec", flags=_FLAGS), False)
        if last is not None:
            result = _run(compile(ast.Expression(last.value), "<cell>", "eval", flags=_FLAGS), True)
            if result is not None:
                _namespace["_"] = result
                _send({"type": "result", "id": request["id"], "bundle": _bundle(result)})
        _flush_figures()
    except KeyboardInterrupt:
        status, cancelled = "error", True
        _send({"type": "error", "id": request["id"], "ename": "KeyboardInterrupt", "evalue": "interrupted", "traceback": []})
    except BaseException as error:
        status = "error"
        if isinstance(error, SystemExit):
            status = "ok" if error.code in (None, 0) else "error"
        if status == "error":
            lines = traceback.format_exception(type(error), error, error.__traceback__)
            # The runner's own frames say nothing about the cell.
            lines = [line for line in lines if __file__ not in line]
            _send({"type": "error", "id": request["id"], "ename": type(error).__name__, "evalue": str(error), "traceback": lines})
    return status, cancelled


_requests = queue.Queue()


def _reader():
    for line in sys.__stdin__ if sys.__stdin__ else []:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        kind = message.get("type")
        if kind == "interrupt":
            with _state_lock:
                if _current["busy"] and _current["id"] == message.get("id"):
                    _thread.interrupt_main()
        elif kind == "exit":
            break
        else:
            _requests.put(message)
    _requests.put(None)


threading.Thread(target=_reader, daemon=True).start()
_send({"type": "ready", "pid": os.getpid(), "python": sys.version.split()[0]})

while True:
    try:
        request = _requests.get()
        if request is None:
            os._exit(0)
        with _state_lock:
            _current.update(id=request["id"], busy=True)
        _send({"type": "started", "id": request["id"]})
        status, cancelled = _execute(request)
        with _state_lock:
            _current["busy"] = False
        _drain()
        _send({"type": "done", "id": request["id"], "status": status, "executionCount": _count, "cancelled": cancelled})
    except KeyboardInterrupt:
        # An interrupt that arrived as the cell ended: the next request is unaffected.
        with _state_lock:
            _current["busy"] = False
        if _current["id"] is not None:
            _send({"type": "done", "id": _current["id"], "status": "error", "executionCount": _count, "cancelled": True})
