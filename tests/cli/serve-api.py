"""trawl serve's JSON API against independent truths (docs/serve.md):
  - hand-checked answers for the two-core trace tests/data/calls-2cpu.tarmac
    (timeline at three zooms, steps, search, go to), written out below;
  - the CLI at the same lines: /api/regs equals `trawl regs --json`,
    /api/mem `trawl mem --json`, /api/write `trawl last-write`/`next-write`;
  - the trace file itself for /api/lines; the timeline also equals the
    aggregation computed from `trawl calltree` (cdp.aggregate);
  - refusals: no or wrong token, a foreign Host header, paths outside the
    page and the API, traces not named on the command line.
Usage: serve-api.py TRAWL TMPDIR [EMULATED_TRACE IMAGE]
"""
import json
import os
import shutil
import time
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

trawl, tmp = sys.argv[1:3]
emulated = sys.argv[3:5] if len(sys.argv) >= 5 else None
src = os.environ["TRAWL_SRC"]
fails = []
check = cdp.checker(fails)
cli = cdp.cli_runner(trawl)


two = os.path.join(tmp, "calls-2cpu.tarmac")
shutil.copy(os.path.join(src, "tests/data/calls-2cpu.tarmac"), two)
bad = os.path.join(tmp, "bad.tarmac")
with open(bad, "w") as f:
    f.write("1 clk IT (1) 00001000 d503201f O EL1h_ns : NOP\n1 clk R X0 zzzz\n")
traces = [two] + ([emulated[0]] if emulated else []) + [bad]
args = (["--image", emulated[1]] if emulated else []) + traces
srv = cdp.Server(trawl, args)
try:
    # ---- who may ask, and what ----
    check(srv.get("/api/traces", token=False)[0] == 403, "no token: not 403")
    check(srv.get("/api/traces", token="f" * 32)[0] == 403, "a wrong token: not 403")
    check(srv.get("/", token=srv.token[:-1])[0] == 403, "a token cut short: not 403")
    port = srv.hostport.split(":")[1]
    check(srv.get("/api/traces", host="evil.example:" + port)[0] == 403, "a foreign Host: not 403")
    check(srv.get("/api/traces", host="localhost:" + port)[0] == 200, "Host localhost refused")
    check(srv.get("/api/traces", host="127.0.0.1:1")[0] == 403, "Host with another port: not 403")
    for path in ("/etc/passwd", "/../../etc/passwd", "/api/nope", "/index.html.bak", "/serve.h"):
        check(srv.get(path)[0] == 404, path + ": not 404")
    for path in ("/", "/index.html", "/app.js", "/style.css"):
        check(srv.get(path)[0] == 200, path + ": not served")
    st, body = srv.get("/api/trace?trace=%d" % len(traces))
    check(st == 404, "a trace not on the command line: HTTP %d" % st)
    for q in ("from=x", "count=0", "count=99999", "bogus=1", "cols=1e3", "trace=-1"):
        st, body = srv.get("/api/lines?trace=0&" + q)
        check(st == 400, "/api/lines?%s: HTTP %d, expected 400" % (q, st))
    # a request that names no trace is a usage error, not a missing trace
    for path in ("/api/trace", "/api/lines?from=1&count=1", "/api/timeline?from=1&to=2&cols=1",
                 "/api/events?from=0&count=1", "/api/stats"):
        st, body = srv.get(path)
        check(st == 400 and b"'trace' is missing" in body, "%s without trace=: HTTP %d %s" % (path, st, body[:80]))
    listed = srv.api("/api/traces")["traces"]
    check([t["path"] for t in listed] == traces, "trace list %s" % listed)

    # ---- the two-core trace: hand-checked ----
    info = srv.wait_ready(0)
    check((info["lines"], info["events"], info["cpus"]) == (19, 15, 2),
          "2cpu info %s" % {k: info[k] for k in ("lines", "events", "cpus")})
    # Golden answers (tests/cli/golden/serve-*.json), checked by hand:
    #   1-20 in 19 columns, one column per line, col(L) = L - 1:
    #     cpu0 0x1000 lines 4-13 -> columns 3-12, 0x1010 (10) -> 9;
    #     cpu1 0x1000 5-19 -> 4-18, 0x1020 11-17 -> 10-16, the IRQ 14-16
    #     -> 13-15 at depth 2 and its mark at column 13;
    #   1-20 in 2 columns, col(L) = (L - 1) * 2 // 19: lines 1-10 column 0,
    #     11-19 column 1 (the IRQ and 0x1020 in column 1);
    #   10-11 in 4 columns, col(L) = (L - 10) * 2: what starts before 10 is
    #     column 0, what ends after 11 column 3; the IRQ (line 14) is outside.
    views = ((1, 20, 19), (1, 20, 2), (10, 12, 4))
    golden = os.path.join(src, "tests/cli/golden")

    def expect_golden(name, answer):
        path = os.path.join(golden, name)
        if os.environ.get("TRAWL_UPDATE_GOLDEN") == "1":
            with open(path, "w") as f:
                json.dump(answer, f, indent=1)
                f.write("\n")
        with open(path) as f:
            want = json.load(f)
        check(answer == want, "%s: the answer differs from the golden file: %s" % (name, answer))
        return want
    levels = cdp.calltree_levels(cli("calltree", two))
    for frm, to, cols in views:
        tl = srv.api("/api/timeline?trace=0&from=%d&to=%d&cols=%d" % (frm, to, cols))
        want = expect_golden("serve-timeline-%d-%d-%d.json" % (frm, to, cols), tl)
        check(want["items"] == cdp.aggregate(levels, frm, to, cols, [0, 1]),
              "aggregation %s" % ((frm, to, cols),))
    # calls of a chosen function as marks: 0x1000 is each core's root (lines
    # 4 and 5), 0x1010 cpu0's call at line 10
    tl = srv.api("/api/timeline?trace=0&from=1&to=20&cols=19&mark=0x1000")
    check(tl["calls"] == [[0, 3, 1, 4], [1, 4, 1, 5]], "calls of 0x1000: %s" % tl.get("calls"))
    tl = srv.api("/api/timeline?trace=0&from=1&to=20&cols=2&mark=0x1010")
    check(tl["calls"] == [[0, 0, 1, 10]], "calls of 0x1010: %s" % tl.get("calls"))
    check("calls" not in srv.api("/api/timeline?trace=0&from=1&to=20&cols=2"), "calls without mark=")
    # a budget of 3 items keeps the shallowest levels
    tl = srv.api("/api/timeline?trace=0&from=1&to=20&cols=19&max=3")
    check(tl["truncated"] and tl["items"] == srv.api("/api/timeline?trace=0&from=1&to=20&cols=19")["items"][:3],
          "budget: %s" % tl)
    # the index's call depth counts BL/BLR and RET only, so the IRQ handler
    # (line 14) is at the depth of the function it interrupted (0x1020):
    # stepping out leaves that function, at line 19 (as the terminal browser)
    steps = {("over", 6): 13, ("out", 10): 13, ("over", 8): 19, ("out", 14): 19, ("back", 13): 6}
    for (op, line), want in steps.items():
        got = srv.api("/api/step?trace=0&line=%d&op=%s" % (line, op))["line"]
        check(got == want, "step %s from line %d: %s, expected %d" % (op, line, got, want))
    check(srv.api("/api/search?trace=0&line=1&text=CoreEvent_IRQ")["line"] == 12, "search IRQ")
    check(srv.api("/api/search?trace=0&line=12&text=CoreEvent_IRQ")["line"] is None, "search past it")
    check(srv.api("/api/search?trace=0&line=19&text=CoreEvent_IRQ&dir=last")["line"] == 12, "search back")
    check(srv.api("/api/search?trace=0&line=13&text=IRQ&dir=last")["line"] == 12, "search back 1")
    check(srv.api("/api/search?trace=0&line=12&text=IRQ&dir=last")["line"] is None, "search back past it")
    check(srv.api("/api/search?trace=0&line=19&text=cpu0%20IT&dir=last")["line"] == 13, "search back: last cpu0")
    check(srv.api("/api/goto?trace=0&q=0x1020")["line"] == 11, "go to 0x1020")
    check(srv.api("/api/goto?trace=0&q=0x1008&line=14")["line"] == 19, "go to next 0x1008")
    check(srv.api("/api/goto?trace=0&q=@5")["line"] == 16, "go to time 5")
    check(srv.api("/api/goto?trace=0&q=@5clk")["line"] == 16, "go to time 5clk")
    # a real time on a trace that counts clk: refused, never converted
    st, body = srv.get("/api/goto?trace=0&q=@5ns")
    check(st == 400 and b"cycles and real time cannot be converted" in body,
          "@5ns on a clk trace: HTTP %d %s" % (st, body[:100]))
    check(srv.api("/api/goto?trace=0&q=7")["line"] == 7, "go to line 7")
    with open(two) as f:
        text = f.read().split("\n")
    got = srv.api("/api/lines?trace=0&from=3&count=4")["lines"]
    check(got == text[2:6], "lines 3-6: %s" % got)
    check(srv.api("/api/lines?trace=0&from=18&count=10")["lines"] == text[17:19], "last lines")

    # ---- registers, memory and writes equal the CLI's ----
    def same_as_cli(t, path, line):
        r = srv.api("/api/regs?trace=%d&line=%d" % (t, line))
        want = json.loads(cli("regs", "--at", str(line), "--json", path))
        check(r["event"] == want["event"] and r["cpu"] == want["cpu"], "line %d: event/cpu" % line)
        got = [[n, v] for n, v, _ in r["registers"]]
        check(got == [[n, v] for n, v in want["registers"].items()],
              "%s line %d: /api/regs differs from trawl regs" % (os.path.basename(path), line))
        return r

    for line in range(1, 20):
        same_as_cli(0, two, line)
    # changed marks: line 16 (cpu1's ERET at 5 clk) follows the SP write of line 15
    # (golden: cpu1's pc 0x400 and sp 0x30000 after its handler's first NOP)
    r = expect_golden("serve-regs-15.json", srv.api("/api/regs?trace=0&line=15"))
    check([n for n, _, c in r["registers"] if c] == ["sp"], "changed at line 15: %s" % r["registers"])
    if emulated:
        path = emulated[0]
        einfo = srv.wait_ready(1)
        for line in (150, einfo["lines"] // 3, einfo["lines"] // 2, einfo["lines"] - 3):
            r = same_as_cli(1, path, line)
            sp = int(dict((n, v) for n, v, _ in r["registers"])["sp"], 16)
            for addr, n in ((sp - 64, 256), (sp, 1), (0x400000, 64)):
                m = srv.api("/api/mem?trace=1&line=%d&addr=%d&len=%d" % (line, addr, n))
                want = json.loads(cli("mem", "--at", str(line), "--json", path, str(addr), str(n)))
                check(m == want, "line %d mem %#x+%d: %s vs %s" % (line, addr, n, m, want))
            for cmd, d in (("last-write", "last"), ("next-write", "next")):
                for target, q in (("x0", "reg=x0"), ("w19", "reg=w19"), ("sp", "reg=sp"),
                                  (hex(sp), "addr=%d" % sp), ("%#x:8" % (sp + 8), "addr=%d&len=8" % (sp + 8))):
                    got = srv.api("/api/write?trace=1&line=%d&dir=%s&%s" % (line, d, q))
                    want = json.loads(cli(cmd, "--at", str(line), "--json", path, target))
                    check(got == want, "line %d %s %s: %s vs %s" % (line, cmd, target, got, want))
        # a write of a register and of memory at once is refused, naming both
        st, body = srv.get("/api/write?trace=1&line=150&dir=last&reg=x0&addr=%d" % sp)
        check(st == 400 and b"reg= or addr=, not both" in body, "reg= and addr= together: HTTP %d %s" % (st, body[:80]))
        # the calls of build, grouped per column, from the calltree text
        tree = cdp.calltree_levels(cli("calltree", "--image", emulated[1], path))
        starts = sorted(f for lv in tree.values() for f, _, n in lv if n == "build")
        for frm, to, cols in ((1, einfo["lines"] + 1, 700), (starts[3], starts[9] + 1, 50)):
            want, cur = [], None
            for f in starts:
                if frm <= f < to:
                    c = (f - frm) * cols // (to - frm)
                    if want and want[-1][1] == c:
                        want[-1][2] += 1
                    else:
                        want.append([0, c, 1, f])
            got = srv.api("/api/timeline?trace=1&from=%d&to=%d&cols=%d&mark=build" % (frm, to, cols))["calls"]
            check(got == want and len(want) > 1, "calls of build %s: %s vs %s" % ((frm, to, cols), got[:4], want[:4]))
        first_build = next(a for a in cdp.calltree_levels(cli("calltree", "--image", emulated[1], path)).values()
                           for a in a if a[2] == "build")
        got = srv.api("/api/goto?trace=1&q=build")["line"]
        check(got == min(f for lv in cdp.calltree_levels(cli("calltree", "--image", emulated[1], path)).values()
                         for f, _, n in lv if n == "build"), "go to build: %s (%s)" % (got, first_build))
    # a trace that cannot be read: the page learns why, the others still work,
    # and the server's exit status says an input was not used
    nbad = len(traces) - 1
    deadline = time.time() + 60
    while srv.api("/api/trace?trace=%d" % nbad)["state"] not in ("failed", "ready") and time.time() < deadline:
        time.sleep(0.05)
    t = srv.api("/api/trace?trace=%d" % nbad)
    check(t["state"] == "failed" and "bad.tarmac:2:12: expected a register value" in t.get("message", ""),
          "the bad trace: %s" % t)
    st, _ = srv.get("/api/lines?trace=%d&from=1&count=2" % nbad)
    check(st == 503, "lines of a failed trace: HTTP %d" % st)
    check(srv.api("/api/lines?trace=0&from=1&count=1")["lines"] == text[:1], "trace 0 after the failure")
finally:
    rc = srv.stop()
    check(rc == 1, "trawl serve exited %s after SIGTERM with a trace it could not read, expected 1" % rc)


def cxx_names(q):
    """Go to and mark take a C++ function by its shown (demangled) name and
    by its ELF name alike; truth: the first activation of the demangled name
    in `trawl calltree --image`'s text."""
    elf, tarmac = q + "/calculator-aarch64.elf", q + "/calculator-aarch64-fastmodel.tarmac"
    srv = cdp.Server(trawl, ["--image", elf, tarmac])
    try:
        srv.wait_ready(0)
        starts = sorted(f for lv in cdp.calltree_levels(cli("calltree", "--image", elf, tarmac)).values()
                        for f, _, n in lv if n == "Lexer::next()")
        check(len(starts) > 1, "calculator: no Lexer::next() in the calltree")
        for name in ("Lexer::next()", "_ZN5Lexer4nextEv"):
            got = srv.api("/api/goto?trace=0&q=" + name)["line"]
            check(got == starts[0], "go to %s: %s, expected %d" % (name, got, starts[0]))
            got = srv.api("/api/goto?trace=0&q=%s&line=%d" % (name, starts[0]))["line"]
            check(got == starts[1], "go to next %s: %s, expected %d" % (name, got, starts[1]))
        tl = "/api/timeline?trace=0&from=1&to=%d&cols=100&mark=" % (starts[-1] + 1)
        a, b = srv.api(tl + "Lexer::next()")["calls"], srv.api(tl + "_ZN5Lexer4nextEv")["calls"]
        check(a and a == b and sum(c[2] for c in a) == len(starts),
              "calls of Lexer::next() by either name: %s vs %s (%d calls)" % (a[:3], b[:3], len(starts)))
    finally:
        check(srv.stop() == 0, "serve of the calculator trace did not exit 0")


corpus = os.environ.get("TRAWL_CORPUS", "") + "/tarmac"
if os.path.exists(corpus + "/calculator-aarch64.elf"):
    cxx_names(corpus)
else:
    print("SKIP (part): corpus calculator trace not found under %s" % corpus)

sys.exit(1 if fails else 0)
