"""A small Chrome DevTools Protocol client over --remote-debugging-pipe.

Chromium reads commands from fd 3 and writes answers and events to fd 4,
each message JSON ended by a NUL byte: no websocket, no npm package, only
the standard library. Used by the web view's browser tests
(tests/cli/serve-browser.py) and bench/bench-serve.py.
"""
import json
import os
import shutil
import subprocess
import tempfile
import time


def checker(fails):
    """check(ok, msg): a failed check is printed and kept in fails."""
    def check(ok, msg):
        if not ok:
            fails.append(msg)
            print("FAIL: " + msg)
    return check


def cli_runner(trawl):
    """cli(*args): trawl's standard output (a failing command raises)."""
    def cli(*args):
        return subprocess.run([trawl] + list(args), check=True, capture_output=True,
                              text=True).stdout
    return cli


def find_chromium():
    # Debian's /usr/bin/chromium is a shell wrapper around this
    if os.access("/usr/lib/chromium/chromium", os.X_OK):
        return "/usr/lib/chromium/chromium"
    for name in ("chromium", "chromium-browser", "google-chrome"):
        p = shutil.which(name)
        if p:
            return p
    return None


class Browser:
    def __init__(self, path, width=1400, height=900, timeout=30):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="trawl-cdp-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Chromium wants its pipe ends exactly at fds 3 and 4
        def child_fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)
        args = [path, "--headless=new", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                "--disable-extensions", "--disable-background-networking",
                "--disable-sync", "--metrics-recording-only", "--mute-audio",
                "--user-data-dir=" + self.profile,
                "--window-size=%d,%d" % (width, height), "about:blank"]
        # close_fds would run after child_fds and close 3 and 4 again; the
        # parent's other descriptors are close-on-exec anyway
        self.proc = subprocess.Popen(args, preexec_fn=child_fds, close_fds=False,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.events = []
        self.session = None

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from Chromium")
            chunk = os.read(self.from_chrome, 1 << 20)
            if not chunk:
                raise RuntimeError("Chromium closed its pipe")
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + self.timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def open(self, url, width=1400, height=900):
        t = self.send("Target.createTarget", {"url": "about:blank"}, session=False)
        s = self.send("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True},
                      session=False)
        self.session = s["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        return self.send("Page.navigate", {"url": url})

    def eval(self, expr):
        r = self.send("Runtime.evaluate", {"expression": expr, "returnByValue": True,
                                           "awaitPromise": True})
        if "exceptionDetails" in r:
            raise RuntimeError("page: %s" % r["exceptionDetails"])
        return r["result"].get("value")

    def wait_for(self, expr, timeout=20):
        deadline = time.time() + timeout
        while time.time() < deadline:
            v = self.eval(expr)
            if v:
                return v
            time.sleep(0.05)
        raise TimeoutError("page never had: " + expr)

    def click(self, x, y, modifiers=0):
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left",
                                                   "clickCount": 1, "modifiers": modifiers})

    def screenshot(self, path):
        import base64
        r = self.send("Page.captureScreenshot", {"format": "png"})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))

    def close(self):
        try:
            self.send("Browser.close", session=False)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        for fd in (self.to_chrome, self.from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


class Server:
    """`trawl serve` on a free loopback port, stopped by stop() (SIGTERM)."""

    def __init__(self, trawl, args):
        import signal  # noqa: F401  (documented: stop() sends SIGTERM)
        self.proc = subprocess.Popen([trawl, "serve"] + args, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        line = self.proc.stdout.readline().decode().strip()
        if not line.startswith("http://"):
            err = self.proc.stderr.read().decode()
            raise RuntimeError("trawl serve printed %r: %s" % (line, err))
        self.url = line
        rest = line[len("http://"):]
        self.hostport = rest.split("/", 1)[0]
        self.token = line.split("token=", 1)[1]

    def get(self, path, host=None, token=True):
        """(status, body) of a GET; token=False leaves it out, a string replaces it."""
        import http.client
        conn = http.client.HTTPConnection(self.hostport, timeout=60)
        if token is True:
            path += ("&" if "?" in path else "?") + "token=" + self.token
        elif token:
            path += ("&" if "?" in path else "?") + "token=" + token
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", host or self.hostport)
        conn.endheaders()
        r = conn.getresponse()
        body = r.read()
        conn.close()
        return r.status, body

    def api(self, path):
        status, body = self.get(path)
        if status != 200:
            raise RuntimeError("%s: HTTP %d: %s" % (path, status, body[:200]))
        return json.loads(body)

    def wait_ready(self, trace, timeout=120):
        deadline = time.time() + timeout
        while time.time() < deadline:
            t = self.api("/api/trace?trace=%d" % trace)
            if t["state"] == "ready":
                return t
            if t["state"] == "failed":
                raise RuntimeError("trace %d failed: %s" % (trace, t.get("message")))
            time.sleep(0.1)
        raise TimeoutError("trace %d never became ready" % trace)

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return self.proc.returncode


def calltree_levels(text):
    """Activations of `trawl calltree` text by (cpu, depth): lists of
    (first line, last line, name) in order, parsed from the indentation."""
    import re
    levels = {}
    cpu = 0
    pat = re.compile(r"^( *)(.*?) @0x[0-9a-f]+  lines (\d+)-(\d+)  ")
    for line in text.splitlines():
        m = re.match(r"^cpu (\d+):$", line)
        if m:
            cpu = int(m.group(1))
            continue
        m = pat.match(line)
        if not m:
            raise ValueError("calltree line not understood: " + line)
        depth = len(m.group(1)) // 2
        levels.setdefault((cpu, depth), []).append((int(m.group(3)), int(m.group(4)), m.group(2)))
    return levels


def aggregate(levels, frm, to, cols, cores):
    """The timeline items docs/serve.md defines, computed from the call tree
    text one activation at a time (the server uses binary searches)."""
    def col(line):
        if line < frm:
            return 0
        if line >= to:
            return cols - 1
        return (line - frm) * cols // (to - frm)
    items = []
    depth = max((d for (_, d) in levels), default=-1) + 1
    for d in range(depth):
        for cpu in cores:
            groups = []
            for first, last, name in levels.get((cpu, d), []):
                if last < frm or first >= to:
                    continue
                c0, c1 = col(first), col(last)
                if groups and c0 <= groups[-1][3]:
                    g = groups[-1]
                    g[3] = max(g[3], c1)
                    g[4] += 1
                    g[5] = None
                    g[7] = last
                else:
                    groups.append([cpu, d, c0, c1, 1, name, first, last])
            items.extend(groups)
    return items
