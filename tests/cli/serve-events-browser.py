"""trawl serve's page on a software-event trace (a rec-demo recording) in
headless Chromium (cdp.py). The truth is `trawl events list`:
  - the rows the list shows at a position are the lines `events list
    --abs` prints there, character for character;
  - after the filter panel's subsystem filter is applied, the list holds
    exactly what `events list --subsys lock` prints (nothing else shows)
    and the timeline has no bar of an activity that begins outside it;
  - a click in the timeline selects the first event at or after the time
    under the mouse and scrolls the list to it; a click in the list draws
    the timeline's cursor at that event's time.
A screenshot goes to OUTDIR/serve-events-screenshot.png.
Usage: serve-events-browser.py TRAWL TRACE DEFS OUTDIR
"""
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402

trawl, trace, defs, outdir = sys.argv[1:5]
fails = []
check = cdp.checker(fails)
cli = cdp.cli_runner(trawl)

ROWS_JS = ("[...document.querySelectorAll('#list .row')].map(r => [Number(r.dataset.pos),"
           " r.childNodes[1].textContent])")


def type_enter(b, field, text):
    b.eval("(() => { const e = document.getElementById(%s); e.value = %s;"
           " e.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true})); })()"
           % (json.dumps(field), json.dumps(text)))


def rows_match(b, lines, what):
    rows = b.eval(ROWS_JS)
    check(len(rows) > 5, what + ": only %d rows shown" % len(rows))
    bad = [(p, t) for p, t in rows if p >= len(lines) or lines[p] != t]
    check(not bad, what + ": rows differ from events list, first %s" % (bad[:1],))


full = cli("events", "list", "--abs", trace).splitlines()
locks = cli("events", "list", "--abs", trace, "--subsys", "lock").splitlines()
srv = cdp.Server(trawl, ["--defs", defs, trace])
browser = None
try:
    browser = cdp.Browser(cdp.find_chromium())
    browser.open(srv.url)
    browser.wait_for("typeof trawlView !== 'undefined' && trawlView.ready && trawlView.timeline"
                     " && trawlView.timeline.bars", timeout=60)
    check(browser.eval("document.querySelector('aside').hidden && !document.getElementById('filters').hidden"),
          "the event page shows the register panes or hides the filters")
    # the list at a position equals events list there
    pos = len(full) // 2
    type_enter(browser, "goto", str(pos))
    browser.wait_for("document.querySelector('#list .row.sel') &&"
                     " document.querySelector('#list .row.sel').dataset.pos === '%d'" % pos)
    rows_match(browser, full, "list at %d" % pos)

    # the filter panel: only lock events remain, in the list and the timeline
    browser.eval("(() => { document.getElementById('f-subsys').value = 'lock';"
                 " document.getElementById('apply').click(); })()")
    browser.wait_for("trawlView.total === %d && document.querySelector('#list .row') &&"
                     " document.querySelector('#list .row').dataset.pos === '0' &&"
                     " trawlView.timeline && trawlView.timeline.dots.reduce((n, d) => n + d[2], 0) === %d"
                     % (len(locks), len(locks)))
    rows_match(browser, locks, "filtered list")
    names = [a["name"] for a in browser.eval("trawlView.info.activities")]
    shown = {names[b[1]] for b in browser.eval("trawlView.timeline.bars")}
    check(shown and shown <= {"lock_hold", "phase"}, "bars of activities not begun by lock events: %s" % shown)
    check("#fsubsys=lock" in browser.eval("location.hash") or "&fsubsys=lock" in browser.eval("location.hash"),
          "the filter is not in the URL")

    # a click in the timeline: the list scrolls to the first event at or after that time
    box = browser.eval("(() => { const r = document.getElementById('timeline').getBoundingClientRect();"
                       " return [r.left, r.top, r.width, r.height]; })()")
    # at the x of the middle lock event, so the answer is not the position
    # already selected (0) and the wait below cannot pass early
    frm, to = browser.eval("[trawlView.from, trawlView.to]")
    times = [int(line.split()[0]) for line in locks]
    x = int((times[len(times) // 2] - frm) / (to - frm) * box[2])
    t = int(frm + x / box[2] * (to - frm))
    expect = next(i for i, v in enumerate(times) if v >= t)
    check(expect != browser.eval("trawlView.pos"), "the timeline click would not move the selection")
    browser.click(box[0] + x, box[1] + box[3] - 20)
    browser.wait_for("trawlView.pos === %d" % expect)
    browser.wait_for("(() => { const s = document.querySelector('#list .row.sel');"
                     " if (!s || s.dataset.pos !== '%d') return false;"
                     " const l = document.getElementById('list').getBoundingClientRect(), r = s.getBoundingClientRect();"
                     " return r.top >= l.top && r.bottom <= l.bottom; })()" % expect)

    # a click in the list: the cursor (a blue column) at that event's time
    row = browser.eval("(() => { const rows = document.querySelectorAll('#list .row');"
                       " const r = rows[rows.length - 4]; const b = r.getBoundingClientRect();"
                       " return [b.left + 40, b.top + 8, Number(r.dataset.pos), Number(r.dataset.time)]; })()")
    browser.click(row[0], row[1])
    browser.wait_for("trawlView.pos === %d && trawlView.cursor === %d" % (row[2], row[3]))
    time.sleep(0.2)
    blue = browser.eval("(() => { const c = document.getElementById('timeline'), g = c.getContext('2d');"
                        " const v = trawlView, x = Math.floor((%d - v.from) / (v.to - v.from) * c.clientWidth"
                        " * (window.devicePixelRatio || 1)) + 0;"
                        " const p = g.getImageData(x, 2, 1, 1).data; return [p[0], p[1], p[2]]; })()" % row[3])
    check(blue == [0, 85, 255], "no cursor at the clicked event's time in the timeline (pixel %s)" % blue)

    # the statistics tab shows events summary's counts
    want = json.loads(cli("events", "summary", "--json", trace, "--defs", defs, "--subsys", "lock"))
    browser.eval("document.getElementById('stats-tab').click()")
    browser.wait_for("document.querySelector('#stats-acts') !== null")
    counts = browser.eval("[...document.querySelectorAll('#stats-acts tr')].slice(1)"
                          ".map(r => [r.children[0].textContent, Number(r.children[2].textContent)])")
    check(counts == [[a["name"], a["count"]] for a in want["activities"]],
          "statistics tab %s, events summary %s" % (counts, [[a["name"], a["count"]] for a in want["activities"]]))
    browser.screenshot(os.path.join(outdir, "serve-events-screenshot.png"))
finally:
    if browser:
        browser.close()
    srv.stop()
sys.exit(1 if fails else 0)
