"""trawl serve's page in headless Chromium (driven over CDP, cdp.py).

The truths are the CLI's own answers and the call tree text:
  - the register pane shows exactly what `trawl regs --json` prints at the
    same line, the memory pane what `trawl mem --json` prints;
  - the timeline items the page received at three zooms equal the
    aggregation computed here from `trawl calltree` (cdp.aggregate);
  - a click in the timeline selects the line under the mouse and scrolls the
    list to it; a click in the list moves the timeline's cursor there;
  - a wrong token gets 403.
A screenshot goes to $TRAWL_BUILD/serve-screenshot.png.
Usage: serve-browser.py TRAWL TRACE IMAGE OUTDIR
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

trawl, trace, image, outdir = sys.argv[1:5]
fails = []
check = cdp.checker(fails)
cli = cdp.cli_runner(trawl)


def type_enter(b, field, text):
    b.eval("(() => { const e = document.getElementById(%s); e.value = %s;"
           " e.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true})); })()"
           % (json.dumps(field), json.dumps(text)))


def page_regs(b):
    return b.eval("Object.fromEntries([...document.querySelectorAll('#regs tr')]"
                  ".map(r => [r.dataset.reg, r.children[1].textContent]))")


def wait_line(b, line):
    b.wait_for("trawlView.line === %d && trawlView.regs && trawlView.regs.line <= %d"
               " && document.querySelector('#list .row.sel') !== null" % (line, line))
    # the panes are drawn after the answers arrive: let the promises settle
    b.wait_for("document.querySelector('#list .row.sel').dataset.line === '%d'" % line)


levels = cdp.calltree_levels(cli("calltree", "--image", image, trace))
srv = cdp.Server(trawl, ["--image", image, trace])
browser = None
try:
    # refusals, before the page
    check(srv.get("/api/traces", token="0" * 32)[0] == 403, "a wrong token is not refused")
    check(srv.get("/", token=False)[0] == 403, "no token is not refused")
    browser = cdp.Browser(cdp.find_chromium())
    browser.open(srv.url.replace("?", "?") + "#l=1")
    browser.wait_for("typeof trawlView !== 'undefined' && trawlView.ready && trawlView.timeline !== null", timeout=60)
    info = browser.eval("trawlView.info")

    # registers and memory at three lines equal trawl regs / trawl mem
    for line in (200, info["lines"] // 2, info["lines"] - 5):
        type_enter(browser, "goto", str(line))
        wait_line(browser, line)
        want = json.loads(cli("regs", "--at", str(line), "--json", trace))["registers"]
        browser.wait_for("trawlView.regs.line <= %d && document.querySelectorAll('#regs tr').length == %d"
                         % (line, len(want)))
        got = page_regs(browser)
        check(got == want, "line %d: registers on the page %s differ from trawl regs %s"
              % (line, sorted(set(got.items()) ^ set(want.items()))[:6], ""))
        sp = int(want["sp"], 16)
        type_enter(browser, "mem-addr", hex(sp))
        base = sp & ~15
        browser.wait_for("document.querySelector('#mem span.b[data-addr=\"%s\"]') !== null" % hex(base))
        shown = browser.eval("[...document.querySelectorAll('#mem span.b')].map(s => s.textContent).join('')")
        mem = json.loads(cli("mem", "--at", str(line), "--json", trace, hex(base), "128"))
        check(shown == mem["bytes"], "line %d: memory on the page differs from trawl mem" % line)

    # the timeline at three zooms, as the page asked for it
    def timeline_matches(label):
        tl = browser.eval("trawlView.timeline")
        want = cdp.aggregate(levels, tl["from"], tl["to"], tl["cols"], [k["cpu"] for k in tl["cores"]])
        check(not tl["truncated"], label + ": truncated")
        check(tl["items"] == want, "%s: %d timeline items differ from the calltree aggregation (%d);"
              " first difference %s" % (label, len(tl["items"]), len(want),
                                        next(((a, b) for a, b in zip(tl["items"], want) if a != b),
                                             None)))
        return tl

    browser.eval("(() => { clampView(1, trawlView.info.lines + 1); return drawTimeline(); })()")
    whole = timeline_matches("whole trace")
    check(len(whole["items"]) > 10, "the whole-trace timeline has only %d items" % len(whole["items"]))
    key = "document.getElementById('timeline').dispatchEvent(new KeyboardEvent('keydown', {key: '%s'}))"
    for label, keys in (("zoomed in x4", "++"), ("zoomed in x64, panned", "++++>")):
        before = browser.eval("trawlView.timeline")
        for k in keys:
            browser.eval(key % ("ArrowRight" if k == ">" else "+"))
        browser.wait_for("trawlView.timeline.to - trawlView.timeline.from < %d"
                         % (before["to"] - before["from"]) if "+" in keys else "true")
        time.sleep(0.3)  # the last key's request
        browser.wait_for("Math.floor(trawlView.from) === trawlView.timeline.from")
        timeline_matches(label)

    # a click in the timeline selects the line under it and scrolls the list there
    box = browser.eval("(() => { const r = document.getElementById('timeline').getBoundingClientRect();"
                       " return [r.left, r.top, r.width, r.height]; })()")
    browser.eval("(() => { clampView(1, trawlView.info.lines + 1); return drawTimeline(); })()")
    x = int(box[2] * 0.7)
    frm, to = browser.eval("[trawlView.from, trawlView.to]")
    expect = int(frm + x / box[2] * (to - frm))
    browser.click(box[0] + x, box[1] + box[3] - 5)
    browser.wait_for("trawlView.line === %d" % expect)
    browser.wait_for("(() => { const s = document.querySelector('#list .row.sel');"
                     " if (!s || s.dataset.line !== '%d') return false;"
                     " const l = document.getElementById('list').getBoundingClientRect(), r = s.getBoundingClientRect();"
                     " return r.top >= l.top && r.bottom <= l.bottom; })()" % expect)

    # a click in the list moves the timeline's cursor (a blue column at its x)
    row = browser.eval("(() => { const rows = document.querySelectorAll('#list .row');"
                       " const r = rows[rows.length - 4].getBoundingClientRect();"
                       " return [r.left + 40, r.top + 8, Number(rows[rows.length - 4].dataset.line)]; })()")
    browser.click(row[0], row[1])
    browser.wait_for("trawlView.line === %d" % row[2])
    time.sleep(0.2)
    blue = browser.eval("(() => { const c = document.getElementById('timeline'), g = c.getContext('2d');"
                        " const x = Math.floor(lineToX(%d, c.clientWidth) * (window.devicePixelRatio || 1));"
                        " const p = g.getImageData(x, c.height - 2, 1, 1).data; return [p[0], p[1], p[2]]; })()"
                        % row[2])
    check(blue == [0, 85, 255], "no cursor at the clicked line's x in the timeline (pixel %s)" % blue)

    # a register's last write lands where trawl last-write says
    line = browser.eval("trawlView.line")
    lw = json.loads(cli("last-write", "--at", str(line), "--json", trace, "x0"))["write"]
    browser.eval("document.querySelector('#regs tr[data-reg=\"x0\"] button').click()")
    if lw:
        want_line = lw["line"]
        if lw["event"] == browser.eval("trawlView.regs.event"):
            prev = json.loads(cli("last-write", "--at", str(browser.eval("trawlView.regs.line") - 1),
                                  "--json", trace, "x0"))["write"]
            want_line = prev["line"] if prev else line
        browser.wait_for("trawlView.line === %d" % want_line)

    browser.eval("(() => { clampView(1, trawlView.info.lines + 1); return drawTimeline(); })()")
    type_enter(browser, "mem-addr", hex(int(json.loads(cli("regs", "--at", str(line), "--json", trace))
                                             ["registers"]["sp"], 16)))
    time.sleep(0.5)
    # the position lives in the URL: a fragment taken from this view opens
    # the same view in a new page
    for _ in range(3):
        browser.eval(key % "+")
    browser.wait_for("trawlView.timeline.to - trawlView.timeline.from < trawlView.info.lines / 4"
                     " && Math.floor(trawlView.from) === trawlView.timeline.from")
    frag = browser.eval("location.hash")
    pos = browser.eval("[trawlView.line, Math.round(trawlView.from), Math.round(trawlView.to), trawlView.mem]")
    b2 = cdp.Browser(cdp.find_chromium())
    try:
        b2.open(srv.url + frag)
        b2.wait_for("typeof trawlView !== 'undefined' && trawlView.ready && trawlView.timeline !== null"
                    " && trawlView.regs !== null", timeout=60)
        got = b2.eval("[trawlView.line, trawlView.from, trawlView.to, trawlView.mem]")
        check(got == pos, "the URL %s reopened at %s, not %s" % (frag, got, pos))
        check(b2.eval("document.querySelector('#list .row.sel').dataset.line") == str(pos[0]),
              "the reopened list does not show line %d selected" % pos[0])
    finally:
        b2.close()

    shot = os.path.join(outdir, "serve-screenshot.png")
    browser.screenshot(shot)
    check(os.path.getsize(shot) > 10000, "the screenshot is empty")
finally:
    if browser:
        browser.close()
    rc = srv.stop()
    check(rc == 0, "trawl serve exited %s" % rc)

sys.exit(1 if fails else 0)
