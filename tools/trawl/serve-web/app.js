// trawl serve's page: timeline (one row per core, flame chart), the trace
// text (virtually scrolled), registers and memory at the selected line.
// Plain JavaScript and a canvas; everything comes from the JSON API
// (docs/serve.md). The position lives in the URL's fragment:
//   #t=TRACE&l=LINE&v=FROM-TO&m=MEMADDR&s=reg:NAME|mem:ADDR&k=FUNCTION
'use strict';

const ROW = 16;            // list row height (px), as in style.css
const BAR = 14;            // timeline bar height (px)
const MAX_SPACER = 8e6;    // tallest scroll area browsers handle well (px)

const $ = (id) => document.getElementById(id);
const view = {
  trace: 0, info: null, line: 1, from: 1, to: 2, mem: null, sel: null, mark: null,
  timeline: null,          // the last timeline answer (tests read it)
  regs: null, listFirst: 0, ready: false,
};
window.trawlView = view;

function token() {
  return new URLSearchParams(location.search).get('token') || '';
}

async function api(path, params) {
  const q = new URLSearchParams(params);
  q.set('token', token());
  const r = await fetch('/api/' + path + '?' + q.toString(), { credentials: 'same-origin' });
  const text = await r.text();
  let body;
  try { body = JSON.parse(text); } catch (e) { body = { error: text.trim() }; }
  body.httpStatus = r.status;
  return body;
}

function say(msg) { $('message').textContent = msg || ''; }

// ---- position in the URL ------------------------------------------------

function readFragment() {
  const f = new URLSearchParams(location.hash.slice(1));
  const num = (k) => (f.has(k) && /^\d+$/.test(f.get(k)) ? Number(f.get(k)) : null);
  const v = (f.get('v') || '').split('-').map(Number);
  return {
    trace: num('t'), line: num('l'), from: v.length === 2 ? v[0] : null,
    to: v.length === 2 ? v[1] : null, mem: f.get('m'), sel: f.get('s'), mark: f.get('k'),
  };
}

function writeFragment() {
  const f = new URLSearchParams();
  f.set('t', view.trace);
  f.set('l', view.line);
  f.set('v', Math.round(view.from) + '-' + Math.round(view.to));
  if (view.mem) f.set('m', view.mem);
  if (view.sel) f.set('s', view.sel);
  if (view.mark) f.set('k', view.mark);
  history.replaceState(null, '', location.pathname + location.search + '#' + f.toString());
}

// ---- opening a trace (its index is built on demand) ----------------------

async function loadTraces() {
  const r = await api('traces', {});
  const sel = $('trace');
  sel.textContent = '';
  r.traces.forEach((t) => {
    const o = document.createElement('option');
    o.value = t.id;
    o.textContent = t.path.split('/').pop();
    o.title = t.path;
    sel.appendChild(o);
  });
  const f = readFragment();
  const id = f.trace !== null && f.trace < r.traces.length ? f.trace : 0;
  sel.value = id;
  await openTrace(id, f);
}

function showProgress(t) {
  const p = $('progress');
  p.hidden = t.state === 'ready';
  const frac = t.total ? t.done / t.total : 0;
  $('progress-bar').style.width = (100 * frac).toFixed(1) + '%';
  const what = { queued: 'waiting', indexing: 'building the index', calls: 'reading the calls' };
  $('progress-text').textContent = t.state === 'failed' ? 'failed: ' + t.message
    : (what[t.state] || t.state) + (t.total ? ' ' + (100 * frac).toFixed(0) + '%' : '') + ' - ' + t.path;
}

async function openTrace(id, f) {
  view.trace = id;
  view.ready = false;
  let t;
  for (;;) {
    t = await api('trace', { trace: id });
    showProgress(t);
    if (t.state === 'ready' || t.state === 'failed') break;
    await new Promise((ok) => setTimeout(ok, 200));
  }
  // what the terminal warned of (a cut trace: the answers lack its end)
  // stays on the page while this trace is open
  $('warning').textContent = t.state === 'ready' && t.message ? 'warning: ' + t.message : '';
  $('warning').hidden = !(t.state === 'ready' && t.message);
  if (t.state !== 'ready') return;
  view.info = t;
  view.kind = t.kind;
  if (t.kind === 'events') {     // a software-event trace: events.js
    await trawlEvents.open(view, t, f ? location.hash.slice(1) : '', api, say);
    return;
  }
  trawlEvents.setMode(false);
  const end = t.lines + 1;
  view.from = f && f.from !== null && f.from < f.to && f.to <= end ? f.from : 1;
  view.to = f && f.to !== null && f.from < f.to && f.to <= end ? f.to : end;
  view.mem = f && f.mem ? f.mem : null;
  view.sel = f && f.sel ? f.sel : null;
  if (view.mem) $('mem-addr').value = view.mem;
  view.mark = f && f.mark ? f.mark : null;
  $('mark').value = view.mark || '';
  $('list-spacer').style.height = Math.min(t.lines * ROW, MAX_SPACER) + 'px';
  view.ready = true;
  await select(f && f.line ? Math.min(f.line, t.lines) : 1, true);
  await drawTimeline();
}

// ---- the list -----------------------------------------------------------

function listRows() { return Math.ceil($('list').clientHeight / ROW) + 1; }

// The scroll position maps onto lines proportionally, so a trace of
// billions of lines still fits the browser's largest scroll area.
function firstLineAtScroll() {
  const el = $('list'), total = view.info.lines, rows = listRows();
  const room = Math.max(1, el.scrollHeight - el.clientHeight);
  const frac = Math.min(1, el.scrollTop / room);
  return Math.max(1, Math.min(total - rows + 2, 1 + Math.round(frac * Math.max(0, total - rows + 1))));
}

function scrollToLine(line) {
  const el = $('list'), total = view.info.lines, rows = listRows();
  const first = view.listFirst;
  if (first && line >= first && line < first + rows - 1) return false;
  const target = Math.max(1, line - Math.floor(rows / 3));
  const room = Math.max(1, el.scrollHeight - el.clientHeight);
  el.scrollTop = total - rows + 1 > 0 ? ((target - 1) / (total - rows + 1)) * room : 0;
  return true;
}

let listTicket = 0;
const isEvents = () => view.kind === 'events';

async function drawList() {
  if (isEvents()) return trawlEvents.drawList();
  if (!view.ready) return;
  const first = firstLineAtScroll(), rows = listRows(), ticket = ++listTicket;
  const r = await api('lines', { trace: view.trace, from: first, count: Math.min(rows, 2000) });
  if (ticket !== listTicket || !r.lines) return;
  view.listFirst = first;
  const box = $('list-rows');
  box.style.top = $('list').scrollTop + 'px';
  box.textContent = '';
  r.lines.forEach((text, i) => {
    const n = first + i, d = document.createElement('div');
    d.className = 'row' + (n === view.line ? ' sel' : '');
    d.dataset.line = n;
    const num = document.createElement('span');
    num.className = 'n';
    num.textContent = n;
    d.appendChild(num);
    d.appendChild(document.createTextNode(text));
    box.appendChild(d);
  });
}

// ---- selection: list, timeline cursor, panes ------------------------------

async function select(line, scroll) {
  if (!view.ready) return;
  view.line = Math.max(1, Math.min(line, view.info.lines));
  if (scroll !== false) scrollToLine(view.line);
  writeFragment();
  $('where').textContent = 'line ' + view.line;
  await Promise.all([drawList(), drawRegs(), drawMem()]);
  drawCursor();
}

async function drawRegs() {
  const r = await api('regs', { trace: view.trace, line: view.line });
  const tab = $('regs');
  tab.textContent = '';
  if (!r.registers) { say(r.error || r.message); return; }
  view.regs = r;
  $('where').textContent = 'line ' + view.line + ' (event ' + r.event + ', cpu ' + r.cpu + ')';
  r.registers.forEach(([name, hex, changed]) => {
    const tr = document.createElement('tr');
    tr.dataset.reg = name;
    if (view.sel === 'reg:' + name) tr.className = 'sel';
    const b1 = document.createElement('button'), b2 = document.createElement('button');
    b1.textContent = '\u25c0'; b1.title = 'last write of ' + name;
    b2.textContent = '\u25b6'; b2.title = 'next write of ' + name;
    b1.onclick = () => jumpWrite({ reg: name }, 'last', 'reg:' + name);
    b2.onclick = () => jumpWrite({ reg: name }, 'next', 'reg:' + name);
    const tn = document.createElement('td'), tv = document.createElement('td'), tb = document.createElement('td');
    tn.textContent = name;
    tv.textContent = hex;
    tv.className = 'v' + (changed ? ' changed' : '');
    tb.append(b1, b2);
    tr.append(tn, tv, tb);
    tab.appendChild(tr);
  });
}

async function drawMem() {
  const box = $('mem');
  if (!view.mem) { box.textContent = ''; return; }
  const base = BigInt(view.mem) & ~15n;
  const r = await api('mem', { trace: view.trace, line: view.line, addr: '0x' + base.toString(16), len: 128 });
  box.textContent = '';
  if (!r.bytes) { box.textContent = r.error || ''; return; }
  for (let row = 0; row < 8; row++) {
    const a = base + BigInt(row * 16);
    box.appendChild(document.createTextNode(a.toString(16).padStart(16, '0') + ':'));
    for (let k = 0; k < 16; k++) {
      const i = row * 16 + k, s = document.createElement('span');
      const addr = '0x' + (a + BigInt(k)).toString(16);
      box.appendChild(document.createTextNode(k === 8 ? '  ' : ' '));
      s.className = 'b' + (view.sel === 'mem:' + addr ? ' sel' : '');
      s.dataset.addr = addr;
      s.textContent = r.bytes.substr(2 * i, 2);
      s.onclick = (ev) => jumpWrite({ addr }, ev.shiftKey ? 'next' : 'last', 'mem:' + addr);
      box.appendChild(s);
    }
    box.appendChild(document.createTextNode('\n'));
  }
}

// Last write: the write that made the current value; asked again from
// there it goes further back (as the terminal browser's w does).
async function jumpWrite(what, dir, sel) {
  view.sel = sel;
  const p = Object.assign({ trace: view.trace, line: view.line, dir }, what);
  if (what.reg && view.regs) p.cpu = view.regs.cpu;
  let r = await api('write', p);
  if (dir === 'last' && r.write && view.regs && r.write.event === view.regs.event) {
    if (view.regs.line > 1) r = await api('write', Object.assign(p, { line: view.regs.line - 1 }));
    else r = { write: null };
  }
  if (!r.write) { say(r.error || 'no ' + (dir === 'last' ? 'earlier' : 'later') + ' write'); return; }
  say('');
  await select(r.write.line);
}

async function step(op) {
  const r = await api('step', { trace: view.trace, line: view.line, op });
  if (r.line === null || r.line === undefined) { say(r.message || r.error); return; }
  say('');
  await select(r.line);
}

async function goTo(q) {
  if (isEvents()) return trawlEvents.goTo(q);
  const r = await api('goto', { trace: view.trace, q, line: view.line });
  if (!r.line) { say(r.message || r.error); return; }
  say('');
  if (r.line < view.from || r.line >= view.to) centreOn(r.line);
  await select(r.line);
  await drawTimeline();
}

async function search(text, dir) {
  let from = view.line;
  for (let round = 0; round < 64; round++) {
    say('searching from line ' + from + ' ...');
    const r = await api('search', { trace: view.trace, line: from, text, dir });
    if (r.line) { say(''); await select(r.line); return; }
    if (!r.next) { say(r.error || "'" + text + "' not found " + (dir === 'last' ? 'above' : 'below')); return; }
    from = r.next;
  }
  say('not found yet: press Enter to go on');
}

// ---- the timeline ---------------------------------------------------------

function canvasSize() {
  const c = $('timeline'), dpr = window.devicePixelRatio || 1;
  const w = c.clientWidth, h = c.clientHeight;
  if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) {
    c.width = Math.round(w * dpr);
    c.height = Math.round(h * dpr);
  }
  return { c, w, h, dpr };
}

// The timeline's 2D context, cleared and scaled to CSS pixels (both kinds
// of trace paint on it).
function clearedCanvas() {
  const { c, w, h, dpr } = canvasSize();
  const g = c.getContext('2d');
  g.setTransform(dpr, 0, 0, dpr, 0, 0);
  g.clearRect(0, 0, w, h);
  return { g, w, h };
}

function hue(name) {
  let h = 0;
  for (let i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
  return h % 360;
}

function coreTops(tl, h) {
  const tops = {}, n = tl.cores.length || 1, each = Math.floor(h / n);
  tl.cores.forEach((k, i) => { tops[k.cpu] = { top: i * each, height: each }; });
  return tops;
}

let tlTicket = 0;
async function drawTimeline() {
  if (isEvents()) return trawlEvents.drawTimeline();
  if (!view.ready) return;
  const { w } = canvasSize(), ticket = ++tlTicket;
  const cols = Math.max(1, Math.floor(w));
  const p = { trace: view.trace, from: Math.floor(view.from), to: Math.ceil(view.to), cols };
  if (view.mark) p.mark = view.mark;
  const r = await api('timeline', p);
  if (ticket !== tlTicket || !r.items) return;
  view.timeline = r;
  paintTimeline();
  // when the first timeline was on the screen, in ms since the page began
  // loading (make bench reads it)
  if (view.firstTimeline === undefined) view.firstTimeline = performance.now();
  writeFragment();
}

function paintTimeline() {
  const { g, w, h } = clearedCanvas(), tl = view.timeline;
  if (!tl) return;
  const tops = coreTops(tl, h), scale = w / tl.cols;
  g.font = '10px sans-serif';
  g.textBaseline = 'middle';
  tl.cores.forEach((k) => {
    const t = tops[k.cpu];
    g.fillStyle = '#f3f4f7';
    g.fillRect(0, t.top, w, 12);
    g.fillStyle = '#556';
    g.fillText('cpu ' + k.cpu, 2, t.top + 6);
  });
  for (const [cpu, d, c0, c1, n, name] of tl.items) {
    const t = tops[cpu], y = t.top + 13 + d * BAR;
    if (y + BAR > t.top + t.height) continue;
    const x = c0 * scale, bw = Math.max(1, (c1 - c0 + 1) * scale);
    g.fillStyle = n === 1 ? 'hsl(' + hue(name) + ',55%,72%)' : '#b9bdc6';
    g.fillRect(x, y, bw, BAR - 1);
    if (n === 1 && bw > 30) {
      g.fillStyle = '#222';
      g.save();
      g.beginPath();
      g.rect(x, y, bw, BAR);
      g.clip();
      g.fillText(name, x + 2, y + BAR / 2);
      g.restore();
    }
  }
  g.fillStyle = '#d22';
  for (const [cpu, col] of tl.marks) {
    const t = tops[cpu], x = col * scale;
    g.beginPath();
    g.moveTo(x - 4, t.top);
    g.lineTo(x + 4, t.top);
    g.lineTo(x, t.top + 8);
    g.fill();
  }
  g.fillStyle = '#123a8c';
  for (const [cpu, col] of tl.calls || []) {
    const t = tops[cpu], x = col * scale, y = t.top + t.height;
    g.beginPath();
    g.moveTo(x - 4, y);
    g.lineTo(x + 4, y);
    g.lineTo(x, y - 8);
    g.fill();
  }
  drawCursorOn(g, w, h);
}

function lineToX(line, w) { return ((line - view.from) / (view.to - view.from)) * w; }
function xToLine(x, w) { return Math.floor(view.from + (x / w) * (view.to - view.from)); }

function drawCursorOn(g, w, h) {
  const x = lineToX(view.line, w);
  if (x < 0 || x > w) return;
  g.strokeStyle = '#05f';
  g.lineWidth = 1;
  g.beginPath();
  g.moveTo(x + 0.5, 0);
  g.lineTo(x + 0.5, h);
  g.stroke();
}

function drawCursor() { if (view.timeline) paintTimeline(); }

function clampView(from, to) {
  const end = view.info.lines + 1, span = Math.max(16, Math.min(to - from, end - 1));
  from = Math.max(1, Math.min(from, end - span));
  view.from = from;
  view.to = from + span;
}

function zoom(factor, atX) {
  if (isEvents()) return trawlEvents.zoom(factor, atX);
  const { w } = canvasSize(), at = atX === undefined ? w / 2 : atX;
  const pivot = view.from + (at / w) * (view.to - view.from);
  const span = (view.to - view.from) * factor;
  clampView(pivot - (at / w) * span, pivot - (at / w) * span + span);
  drawTimeline();
}

function pan(frac) {
  if (isEvents()) return trawlEvents.pan(frac);
  const span = view.to - view.from;
  clampView(view.from + frac * span, view.to + frac * span);
  drawTimeline();
}

function centreOn(line) {
  const span = view.to - view.from;
  clampView(line - span / 2, line + span / 2);
}

function wireTimeline() {
  const c = $('timeline');
  let drag = null;
  c.addEventListener('wheel', (e) => {
    e.preventDefault();
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan((e.deltaX || e.deltaY) / 500);
    else zoom(e.deltaY > 0 ? 1.25 : 0.8, e.offsetX);
  }, { passive: false });
  c.addEventListener('mousedown', (e) => { drag = { x: e.offsetX, from: view.from, to: view.to, moved: false }; });
  window.addEventListener('mousemove', (e) => {
    if (!drag) return;
    const { w } = canvasSize(), dx = e.offsetX - drag.x;
    if (Math.abs(dx) > 3) drag.moved = true;
    if (!drag.moved) return;
    const shift = (-dx / w) * (drag.to - drag.from);
    if (isEvents()) {
      trawlEvents.clamp(drag.from + shift, drag.to + shift);
      trawlEvents.paint();
      return;
    }
    clampView(drag.from + shift, drag.to + shift);
    paintTimeline();
  });
  window.addEventListener('mouseup', (e) => {
    if (!drag) return;
    const d = drag;
    drag = null;
    if (d.moved) { drawTimeline(); return; }
    if (e.target === c && isEvents()) trawlEvents.click(e.offsetX);
    else if (e.target === c) select(xToLine(e.offsetX, canvasSize().w));
  });
  c.addEventListener('keydown', (e) => {
    const keys = { '+': () => zoom(0.5), '=': () => zoom(0.5), '-': () => zoom(2),
      ArrowLeft: () => pan(-0.2), ArrowRight: () => pan(0.2),
      Home: () => {
        if (isEvents()) return trawlEvents.home();
        clampView(1, view.info.lines + 1);
        drawTimeline();
      } };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  new ResizeObserver(() => drawTimeline()).observe(c);
}

// ---- wiring -----------------------------------------------------------------

function wire() {
  wireTimeline();
  $('list').addEventListener('scroll', () => drawList());
  $('list-rows').addEventListener('click', (e) => {
    const row = e.target.closest('.row');
    if (row && isEvents()) trawlEvents.clickRow(Number(row.dataset.pos));
    else if (row) select(Number(row.dataset.line), false);
  });
  $('trace').onchange = () => openTrace(Number($('trace').value), null);
  $('over').onclick = () => step('over');
  $('back').onclick = () => step('back');
  $('out').onclick = () => step('out');
  $('goto').addEventListener('keydown', (e) => { if (e.key === 'Enter') goTo($('goto').value.trim()); });
  $('mark').addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    view.mark = $('mark').value.trim() || null;
    drawTimeline();
  });
  $('search').addEventListener('keydown', (e) => {
    if (e.key === 'Enter') search($('search').value, e.shiftKey ? 'last' : 'next');
  });
  $('mem-addr').addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    const v = $('mem-addr').value.trim();
    if (!/^(0x[0-9a-fA-F]+|\d+)$/.test(v)) { say('give the address as a number'); return; }
    view.mem = '0x' + BigInt(v).toString(16);
    writeFragment();
    drawMem();
  });
  document.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'INPUT' || e.target === $('timeline')) return;
    if (isEvents()) {
      const d = { ArrowDown: 1, ArrowUp: -1 }[e.key];
      if (d) { e.preventDefault(); trawlEvents.step(d); }
      return;
    }
    const keys = { n: () => step('over'), p: () => step('back'), u: () => step('out'),
      ArrowDown: () => select(view.line + 1), ArrowUp: () => select(view.line - 1) };
    if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
  });
  window.addEventListener('hashchange', () => {
    const f = readFragment();
    if (!isEvents() && f.line && f.line !== view.line) select(f.line);
  });
}

wire();
trawlEvents.wire();
loadTraces().catch((e) => say(String(e)));
