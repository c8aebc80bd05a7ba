// The page for software-event traces (docs/serve.md, "Software events"):
// timeline rows per core with activities as bars (a lane per activity),
// messages as arrows, events as dots; the event list (virtually scrolled
// over list positions); the filter panel, whose filter goes with every
// request so every view shows the same events; the statistics tab.
// app.js hands over to these when a trace's kind is "events".
'use strict';

const trawlEvents = (() => {
  const ROW = 16, LANE = 12, MAX_SPACER = 8e6;
  const $ = (id) => document.getElementById(id);
  const FILTERS = ['cpus', 'threads', 'subsys', 'events', 'acts', 'where'];
  let v = null, api = null, say = null;

  function filterParams() {
    const p = {};
    for (const k of FILTERS) if (v.filter[k]) p[k] = v.filter[k];
    return p;
  }
  function params(extra) { return Object.assign({ trace: v.trace }, filterParams(), extra); }

  function writeFragment() {
    const f = new URLSearchParams();
    f.set('t', v.trace);
    f.set('p', v.pos);
    f.set('v', Math.round(v.from) + '-' + Math.round(v.to));
    for (const k of FILTERS) if (v.filter[k]) f.set('f' + k, v.filter[k]);
    history.replaceState(null, '', location.pathname + location.search + '#' + f.toString());
  }

  function setMode(on) {
    for (const id of ['back', 'over', 'out', 'mark', 'search']) $(id).hidden = on;
    document.querySelector('aside').hidden = on;
    $('filters').hidden = !on;
    $('stats-tab').hidden = !on;
    $('goto').placeholder = on ? 'go to: @time (ns) or list position' : 'go to: line, @time, 0xPC or function';
    if (!on) $('stats').hidden = true;
  }

  async function open(view, t, hash, apiFn, sayFn) {
    v = view; api = apiFn; say = sayFn;
    setMode(true);
    const f = new URLSearchParams(hash);
    v.filter = {};
    for (const k of FILTERS) {
      v.filter[k] = f.get('f' + k) || '';
      $('f-' + k).value = v.filter[k];
    }
    const span = (f.get('v') || '').split('-').map(Number);
    const end = t.last + 1;
    v.from = span.length === 2 && span[0] < span[1] && span[0] >= t.first && span[1] <= end ? span[0] : t.first;
    v.to = span.length === 2 && span[0] < span[1] && span[0] >= t.first && span[1] <= end ? span[1] : end;
    v.ready = true;
    await refilter(/^\d+$/.test(f.get('p') || '') ? Number(f.get('p')) : 0);
  }

  // A new filter: the total changes, so the list's scroll area does too.
  async function refilter(pos) {
    const r = await api('events', params({ from: 0, count: 1 }));
    if (r.error) { say(r.error); return; }
    say('');
    v.total = r.total;
    $('list-spacer').style.height = Math.min(v.total * ROW, MAX_SPACER) + 'px';
    v.listFirst = -1;
    await select(Math.min(pos, Math.max(0, v.total - 1)), true);
    await drawTimeline();
    if (!$('stats').hidden) await drawStats();
  }

  function listRows() { return Math.ceil($('list').clientHeight / ROW) + 1; }

  function firstAtScroll() {
    const el = $('list'), rows = listRows();
    const room = Math.max(1, el.scrollHeight - el.clientHeight);
    const frac = Math.min(1, el.scrollTop / room);
    return Math.max(0, Math.round(frac * Math.max(0, v.total - rows + 1)));
  }

  function scrollTo(pos) {
    const el = $('list'), rows = listRows();
    if (v.listFirst >= 0 && pos >= v.listFirst && pos < v.listFirst + rows - 1) return;
    const target = Math.max(0, pos - Math.floor(rows / 3));
    const room = Math.max(1, el.scrollHeight - el.clientHeight);
    el.scrollTop = v.total - rows + 1 > 0 ? (target / (v.total - rows + 1)) * room : 0;
  }

  function eventText(e) {
    let s = String(e.time).padStart(20) + '  cpu ' + String(e.cpu).padEnd(3) + ' tid ' +
      String(e.tid).padEnd(7) + ' ' + e.name;
    for (const k of Object.keys(e.fields)) s += ' ' + k + '=' + e.fields[k];
    return s;
  }

  let listTicket = 0;
  async function drawList() {
    if (!v.ready) return;
    const first = firstAtScroll(), rows = listRows(), ticket = ++listTicket;
    const r = await api('events', params({ from: first, count: Math.min(rows, 2000) }));
    if (ticket !== listTicket || !r.events) return;
    v.listFirst = first;
    v.listEvents = r.events;
    const box = $('list-rows');
    box.style.top = $('list').scrollTop + 'px';
    box.textContent = '';
    for (const e of r.events) {
      const d = document.createElement('div');
      d.className = 'row' + (e.pos === v.pos ? ' sel' : '');
      d.dataset.pos = e.pos;
      d.dataset.time = e.time;
      const num = document.createElement('span');
      num.className = 'n';
      num.textContent = e.pos;
      d.appendChild(num);
      d.appendChild(document.createTextNode(eventText(e)));
      box.appendChild(d);
    }
  }

  async function select(pos, scroll) {
    v.selSeq = (v.selSeq || 0) + 1;
    v.pos = Math.max(0, pos);
    if (scroll !== false) scrollTo(v.pos);
    // the selected event itself: the list drawn may be a newer scroll's
    const [, r] = await Promise.all([drawList(), api('events', params({ from: v.pos, count: 1 }))]);
    if (pos !== v.pos) return;     // selected again meanwhile
    const e = r.events && r.events[0];
    v.cursor = e ? e.time : null;
    $('where').textContent = e ? 'event ' + v.pos + ' of ' + v.total + ', t=' + e.time : '';
    writeFragment();
    paint();
  }

  async function goTo(q) {
    const seq = v.selSeq;
    const r = await api('goto', params({ q }));
    if (seq !== v.selSeq) return;  // something else was selected meanwhile
    if (r.pos === null || r.pos === undefined) { say(r.message || r.error); return; }
    say('');
    if (r.time < v.from || r.time >= v.to) centreOn(r.time);
    await select(r.pos);
    await drawTimeline();
  }

  // ---- the timeline (canvasSize and hue are app.js's) ----
  let tlTicket = 0;
  async function drawTimeline() {
    if (!v.ready) return;
    const { w } = canvasSize(), ticket = ++tlTicket;
    const r = await api('timeline', params({ from: Math.floor(v.from), to: Math.ceil(v.to),
      cols: Math.max(1, Math.floor(w)) }));
    if (ticket !== tlTicket) return;
    if (!r.bars) { say(r.error); return; }
    v.timeline = r;
    paint();
    if (v.firstTimeline === undefined) v.firstTimeline = performance.now();
    writeFragment();
  }

  function paint() {
    const { g, w, h } = clearedCanvas(), tl = v.timeline;
    if (!tl) return;
    // the answer's range can be the overview's grid, a little wider than
    // the one asked (docs/serve.md, "Overview"): columns are placed by it
    const n = tl.cores.length || 1, each = Math.floor(h / n), top = {}, span = v.to - v.from;
    const x0 = ((tl.from - v.from) / span) * w, scale = ((tl.to - tl.from) / tl.cols / span) * w;
    tl.cores.forEach((cpu, i) => { top[cpu] = i * each; });
    g.font = '10px sans-serif';
    g.textBaseline = 'middle';
    for (const cpu of tl.cores) {
      g.fillStyle = '#f3f4f7';
      g.fillRect(0, top[cpu], w, 12);
      g.fillStyle = '#556';
      g.fillText('cpu ' + cpu, 2, top[cpu] + 6);
    }
    for (const [cpu, act, c0, c1, count, name, , , cpuEnd] of tl.bars) {
      const x = x0 + c0 * scale, bw = Math.max(1, (c1 - c0 + 1) * scale);
      if (cpuEnd !== null) {         // a message: an arrow to the receiving core
        const y0 = top[cpu] + 12, y1 = top[cpuEnd] + 12, x1 = x0 + (c1 + 0.5) * scale;
        g.strokeStyle = count === 1 ? '#2a6' : '#8a9';
        g.beginPath();
        g.moveTo(x, y0);
        g.lineTo(x1, y1);
        g.stroke();
        g.fillStyle = g.strokeStyle;
        g.fillRect(x1 - 2, y1 - 2, 4, 4);
        continue;
      }
      const y = top[cpu] + 13 + act * LANE;
      if (y + LANE > top[cpu] + each - 6) continue;
      g.fillStyle = count === 1 ? 'hsl(' + hue(name) + ',55%,70%)' : '#b9bdc6';
      g.fillRect(x, y, bw, LANE - 1);
      if (count === 1 && bw > 30) {
        g.save();
        g.beginPath();
        g.rect(x, y, bw, LANE);
        g.clip();
        g.fillStyle = '#222';
        g.fillText(name, x + 2, y + LANE / 2);
        g.restore();
      }
    }
    g.fillStyle = '#345';
    for (const [cpu, col, count] of tl.dots) {
      g.beginPath();
      g.arc(x0 + (col + 0.5) * scale, top[cpu] + each - 4, count > 1 ? 2.5 : 1.5, 0, 2 * Math.PI);
      g.fill();
    }
    if (v.cursor !== null && v.cursor !== undefined) {
      const x = Math.floor(((v.cursor - v.from) / (v.to - v.from)) * w);
      g.strokeStyle = '#05f';
      g.lineWidth = 1;
      g.beginPath();
      g.moveTo(x + 0.5, 0);
      g.lineTo(x + 0.5, h);
      g.stroke();
    }
  }

  function clamp(from, to) {
    const first = v.info.first, end = v.info.last + 1;
    const span = Math.max(16, Math.min(to - from, end - first));
    from = Math.max(first, Math.min(from, end - span));
    v.from = from;
    v.to = from + span;
  }
  function centreOn(t) { const s = v.to - v.from; clamp(t - s / 2, t + s / 2); }
  function timeAt(x) { return Math.floor(v.from + (x / canvasSize().w) * (v.to - v.from)); }

  // ---- statistics ----
  async function drawStats() {
    const r = await api('stats', params({}));
    const box = $('stats');
    box.textContent = '';
    if (!r.activities) { box.textContent = r.error || ''; return; }
    const h = document.createElement('div');
    h.textContent = r.events_kept + ' events kept of ' + r.events_read + ', over ' + r.span_ns + ' ns';
    box.appendChild(h);
    const tab = document.createElement('table');
    tab.id = 'stats-acts';
    tab.innerHTML = '<tr><th>activity</th><th>kind</th><th>count</th><th>p50 ns</th><th>p90 ns</th>' +
      '<th>p99 ns</th><th>max ns</th><th>durations</th></tr>';
    for (const a of r.activities) {
      const tr = document.createElement('tr');
      for (const k of ['name', 'kind', 'count', 'p50_ns', 'p90_ns', 'p99_ns', 'max_ns']) {
        const td = document.createElement('td');
        td.textContent = a[k];
        tr.appendChild(td);
      }
      const td = document.createElement('td'), most = Math.max(1, ...a.histogram.map((b) => b.count));
      for (const b of a.histogram) {
        const bar = document.createElement('span');
        bar.className = 'hbar';
        bar.style.height = Math.max(1, Math.round(24 * b.count / most)) + 'px';
        bar.title = b.count + ' from ' + b.low_ns + ' ns';
        td.appendChild(bar);
      }
      tr.appendChild(td);
      tab.appendChild(tr);
    }
    box.appendChild(tab);
    const busy = document.createElement('table');
    busy.id = 'stats-busy';
    busy.innerHTML = '<tr><th>state activity</th><th>cpu</th><th>busy fraction</th></tr>';
    const seen = new Set();
    for (const s of r.states) {
      const key = s.activity + '/' + s.cpu;
      if (seen.has(key)) continue;
      seen.add(key);
      const tr = document.createElement('tr');
      tr.innerHTML = '<td></td><td></td><td></td>';
      tr.children[0].textContent = s.activity;
      tr.children[1].textContent = s.cpu;
      tr.children[2].textContent = s.busy_fraction.toFixed(4);
      busy.appendChild(tr);
    }
    box.appendChild(busy);
  }

  function wire() {
    $('apply').onclick = () => {
      for (const k of FILTERS) v.filter[k] = $('f-' + k).value.trim();
      refilter(0);
    };
    for (const k of FILTERS)
      $('f-' + k).addEventListener('keydown', (e) => { if (e.key === 'Enter') $('apply').onclick(); });
    $('stats-tab').onclick = () => {
      $('stats').hidden = !$('stats').hidden;
      if (!$('stats').hidden) drawStats();
    };
  }

  return {
    open, drawList, drawTimeline, paint, goTo, clamp, timeAt, wire, setMode,
    zoom(factor, at) {
      const w = canvasSize().w, a = at === undefined ? w / 2 : at;
      const pivot = v.from + (a / w) * (v.to - v.from), span = (v.to - v.from) * factor;
      clamp(pivot - (a / w) * span, pivot - (a / w) * span + span);
      drawTimeline();
    },
    pan(frac) { const s = v.to - v.from; clamp(v.from + frac * s, v.to + frac * s); drawTimeline(); },
    home() { clamp(v.info.first, v.info.last + 1); drawTimeline(); },
    // a click in the timeline: the first event at or after that time
    click(x) { goTo('@' + timeAt(x)); },
    clickRow(pos) { select(pos, false); },
    step(d) { select(Math.max(0, Math.min(v.total - 1, v.pos + d))); },
  };
})();
window.trawlEvents = trawlEvents;
