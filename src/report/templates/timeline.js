// report.html's frame timeline (docs/report.md, "Frame timeline"): draws
// the lanes of the frame chosen (the list, a worst-frames row, #frame=N)
// from the page's JSON data block (src/lanes/: times in µs from the
// frame's window start, names as indices into `strings`). Plain DOM and
// SVG; it loads nothing and sends nothing.
(function () {
  "use strict";
  var dataEl = document.getElementById("tl-data");
  var svg = document.getElementById("tl-svg");
  if (!dataEl || !svg) return;
  var D = JSON.parse(dataEl.textContent);
  var L = D.lanes, S = L.strings, frames = L.frames;
  if (!frames.length) return;
  var NS = svg.namespaceURI;
  var view = document.getElementById("tl-view");
  var detail = document.getElementById("tl-detail");
  var title = document.getElementById("tl-title");
  var listBox = document.getElementById("tl-list");

  var STATE_FILL = ["#43a047", "#90caf9", "#e0e0e0", "#e57373", "#ffffff", "#9e9e9e"];
  var LABEL_W = 200, ROW = 16, STRIP = 7, GAP = 8, AXIS = 22;
  var KIND_WORD = { main: "main thread", render_thread: "RenderThread", path: "critical path", surface_flinger: "SurfaceFlinger" };

  // ---- the list: by app, then time; j/k walk its janky frames
  var order = frames.map(function (f, i) { return i; });
  order.sort(function (a, b) {
    var x = S[frames[a].app], y = S[frames[b].app];
    return x < y ? -1 : x > y ? 1 : frames[a].t0_ns - frames[b].t0_ns;
  });
  var byIndex = {};
  frames.forEach(function (f, i) { byIndex[f.frame_index] = i; });
  var rowsByFrame = {};

  function txt(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function fmtDur(us) {
    if (us < 1000) return us + " µs";
    return (us / 1000).toFixed(us < 100000 ? 3 : 1) + " ms";
  }
  function atSecs(f, us) { return ((f.t0_ns - D.origin_ns + us * 1000) / 1e9).toFixed(6) + " s"; }
  // Where the frame is: its doFrame's start, as the worst-frames tables' "at".
  function frameAt(f) { return ((f.t0_ns - D.origin_ns) / 1e9 + f.do_frame[0] / 1e6).toFixed(3) + " s"; }

  (function buildList() {
    var t = txt("table");
    var head = txt("tr");
    ["vsync id", "at", "cost", "dropped"].forEach(function (h) { head.appendChild(txt("th", h)); });
    t.appendChild(head);
    var app = null;
    order.forEach(function (i) {
      var f = frames[i];
      if (S[f.app] !== app) {
        app = S[f.app];
        var g = txt("tr", undefined, "app");
        var th = txt("th", app);
        th.colSpan = 4;
        g.appendChild(th);
        t.appendChild(g);
      }
      var tr = txt("tr", undefined, f.dropped_frames >= 1 ? "janky" : "smooth");
      tr.appendChild(txt("td", f.frame_id === null ? "–" : String(f.frame_id), "num"));
      tr.appendChild(txt("td", frameAt(f), "num"));
      tr.appendChild(txt("td", (f.frame_cost_ns / 1e6).toFixed(1) + " ms", "num"));
      var d = txt("td");
      d.appendChild(txt("span", undefined, "lv lv-" + f.drop_level.toLowerCase()));
      d.appendChild(document.createTextNode(f.dropped_frames >= 1 ? f.dropped_frames + " " + f.drop_level : "0"));
      tr.appendChild(d);
      tr.addEventListener("click", function () { select(i, false); });
      rowsByFrame[i] = tr;
      t.appendChild(tr);
    });
    listBox.appendChild(t);
  })();

  // ---- one frame's data, decoded once
  var decoded = {};
  function decode(i) {
    if (decoded[i]) return decoded[i];
    var f = frames[i], lanes = [], k, t;
    f.lanes.forEach(function (l) {
      var sl = [], depth = 0, st = [];
      for (k = 0, t = 0; k + 3 < l.slices.length; k += 4) {
        t += l.slices[k];
        sl.push({ s: t, e: t + l.slices[k + 1], d: l.slices[k + 2], n: S[l.slices[k + 3]] });
        depth = Math.max(depth, l.slices[k + 2] + 1);
      }
      if (l.states.length) {
        for (k = 1, t = l.states[0]; k + 1 < l.states.length; k += 2) {
          st.push({ s: t, e: t + l.states[k + 1], st: l.states[k] });
          t += l.states[k + 1];
        }
      }
      lanes.push({ kind: l.kind, tid: l.tid, pid: l.pid, name: l.name >= 0 ? S[l.name] : "thread " + l.tid, slices: sl, depth: depth, states: st, dropped: l.dropped });
    });
    var path = [];
    for (k = 0, t = 0; k + 6 < f.path.length; k += 7) {
      t += f.path[k];
      path.push({ s: t, e: t + f.path[k + 1], tid: f.path[k + 2], n: f.path[k + 3] >= 0 ? S[f.path[k + 3]] : null, st: f.path[k + 4], hop: L.hops[f.path[k + 5]], depth: f.path[k + 6] });
    }
    var ticks = [];
    for (k = 0, t = 0; k < f.ticks.length; k++) { t += f.ticks[k]; ticks.push(t); }
    var input = [];
    for (k = 0, t = 0; k + 3 < f.input.length; k += 4) {
      t += f.input[k];
      input.push({ s: t, e: t + f.input[k + 1], n: f.input[k + 2] >= 0 ? S[f.input[k + 2]] : null, shown: f.input[k + 3] === 1 });
    }
    decoded[i] = { lanes: lanes, path: path, ticks: ticks, input: input };
    return decoded[i];
  }

  // ---- state: the frame shown and the part of its window in view (µs)
  var cur = null, v0 = 0, v1 = 1, pinned = null, hover = [];

  // Show frame i; `scroll` brings the section into view, `address` puts
  // the frame in the address (#frame=N) for a link to it.
  function select(i, scroll, address) {
    if (i === undefined || i === null || !frames[i]) return;
    if (cur !== null && rowsByFrame[cur]) rowsByFrame[cur].classList.remove("cur");
    cur = i;
    var f = frames[i];
    v0 = 0; v1 = Math.max(f.len, 1); pinned = null;
    var row = rowsByFrame[i];
    row.classList.add("cur");
    // Inside the list only: the page itself stays where the reader is.
    if (row.offsetTop < listBox.scrollTop || row.offsetTop + row.offsetHeight > listBox.scrollTop + listBox.clientHeight) {
      listBox.scrollTop = row.offsetTop - listBox.clientHeight / 2;
    }
    title.textContent = S[f.app] + " · vsync " + (f.frame_id === null ? "–" : f.frame_id) + " · at " + frameAt(f) +
      " · cost " + (f.frame_cost_ns / 1e6).toFixed(1) + " ms · " + f.dropped_frames + " dropped (" + f.drop_level + ")";
    detail.textContent = "Hover a slice, state or segment for its name, thread, start and duration; click to keep it here.";
    var want = "#frame=" + f.frame_index;
    if (address !== false && location.hash !== want) history.replaceState(null, "", want);
    render();
    if (scroll) document.getElementById("frame-timeline").scrollIntoView();
  }

  function step(dir, jankyOnly) {
    var at = order.indexOf(cur);
    for (var k = at + dir; k >= 0 && k < order.length; k += dir) {
      if (!jankyOnly || frames[order[k]].dropped_frames >= 1) { select(order[k], false); return; }
    }
  }

  // ---- drawing
  function el(tag, attrs, parent) {
    var e = document.createElementNS(NS, tag);
    for (var a in attrs) e.setAttribute(a, attrs[a]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function label(parent, x, y, w, h, text, fill) {
    // A nested <svg> clips its text to the box; the whole name stays in
    // the page (selectable, found by the browser's search).
    var box = el("svg", { x: x, y: y, width: Math.max(w, 0), height: h }, parent);
    var t = el("text", { x: 3, y: h - 4, fill: fill || "#1a1a1a" }, box);
    t.textContent = text;
    return box;
  }
  function hueOf(name) {
    var base = name.replace(/[\d\s#:=_-]+$/g, ""), h = 0;
    for (var k = 0; k < base.length; k++) h = (h * 31 + base.charCodeAt(k)) >>> 0;
    return h % 360;
  }
  function niceStep(us) {
    var p = Math.pow(10, Math.floor(Math.log10(us)));
    var m = us / p;
    return (m < 2 ? 2 : m < 5 ? 5 : 10) * p;
  }

  function render() {
    if (cur === null) return;
    var f = frames[cur], d = decode(cur);
    var W = Math.max(600, view.clientWidth), PW = W - LABEL_W - 6;
    var span = v1 - v0, k = PW / span;
    var X = function (t) { return LABEL_W + (t - v0) * k; };
    var seen = function (s, e) { return e >= v0 && s <= v1; };
    var zero = f.vsync !== null ? f.vsync : f.do_frame[0];
    hover = [];
    svg.replaceChildren();
    var back = el("g", {}, svg), front = el("g", {}, svg);

    // axis: ms from the frame's vsync
    var stepUs = niceStep(span / 8);
    for (var t = Math.ceil((v0 - zero) / stepUs) * stepUs + zero; t <= v1; t += stepUs) {
      var x = X(t);
      el("line", { x1: x, x2: x, y1: AXIS - 5, y2: AXIS, stroke: "#999" }, front);
      var tx = el("text", { x: x + 2, y: AXIS - 8, fill: "#555" }, front);
      tx.textContent = ((t - zero) / 1000).toFixed(stepUs < 1000 ? 3 : stepUs < 10000 ? 1 : 0) + " ms";
    }
    var y = AXIS + 4;
    var laneTop = {};

    function laneHead(text, sub, y0, h) {
      el("rect", { x: 0, y: y0, width: LABEL_W - 4, height: h, fill: "#f5f5f5" }, back);
      var a = el("text", { x: 6, y: y0 + 13, "class": "tl-lane", "font-weight": "600" }, front);
      a.textContent = text;
      if (sub) {
        var b = el("text", { x: 6, y: y0 + 26, fill: "#666" }, front);
        b.textContent = sub;
      }
    }
    function addHover(node, info) {
      node.setAttribute("data-h", hover.length);
      hover.push(info);
    }

    d.lanes.forEach(function (l) {
      var h = (l.states.length ? STRIP + 2 : 0) + Math.max(l.depth, 1) * ROW + 2;
      h = Math.max(h, 32);
      var y0 = y;
      laneTop[l.tid] = [y0, h];
      laneHead(l.name, l.tid + " · " + KIND_WORD[l.kind] + (l.dropped ? " · " + l.dropped + " short left out" : ""), y0, h);
      var yy = y0;
      if (l.states.length) {
        l.states.forEach(function (s) {
          if (!seen(s.s, s.e)) return;
          var x0 = Math.max(X(s.s), LABEL_W), x1 = Math.min(X(s.e), W);
          var r = el("rect", { x: x0, y: yy, width: Math.max(x1 - x0, 0.5), height: STRIP, fill: STATE_FILL[s.st] }, front);
          addHover(r, { kind: "state", lane: l, s: s.s, e: s.e, st: s.st });
        });
        yy += STRIP + 2;
      }
      l.slices.forEach(function (s) {
        if (!seen(s.s, s.e)) return;
        var x0 = Math.max(X(s.s), LABEL_W), x1 = Math.min(X(s.e), W), w = Math.max(x1 - x0, 1);
        var hue = hueOf(s.n);
        var g = el("g", {}, front);
        el("rect", { x: x0, y: yy + s.d * ROW, width: w, height: ROW - 1, fill: "hsl(" + hue + ",45%,72%)", stroke: "hsl(" + hue + ",40%,50%)", "stroke-width": 0.5 }, g);
        if (w > 4) label(g, x0, yy + s.d * ROW, w, ROW - 1, s.n);
        addHover(g, { kind: "slice", lane: l, s: s.s, e: s.e, n: s.n, d: s.d });
      });
      y += h + GAP;
    });

    // the presents of the app's layer, and FrameTimeline's expected / actual surface frame
    var py = y, ph = 44;
    laneHead("presents", f.layer !== null ? S[f.layer] : "no layer of the app presented", py, ph);
    [["expected", f.expected, "#bdbdbd", 0], ["actual", f.actual, "#7986cb", 1]].forEach(function (b) {
      if (!b[1] || !seen(b[1][0], b[1][0] + b[1][1])) return;
      var x0 = Math.max(X(b[1][0]), LABEL_W), x1 = Math.min(X(b[1][0] + b[1][1]), W);
      var g = el("g", {}, front);
      el("rect", { x: x0, y: py + b[3] * 14, width: Math.max(x1 - x0, 1), height: 12, fill: b[2] }, g);
      label(g, x0, py + b[3] * 14, x1 - x0, 12, "FrameTimeline " + b[0]);
      addHover(g, { kind: "timeline", what: b[0], s: b[1][0], e: b[1][0] + b[1][1] });
    });
    f.presents.forEach(function (p) {
      if (!seen(p.at, p.at)) return;
      var own = f.frame_id !== null && p.frame_id === f.frame_id;
      var x = X(p.at);
      var g = el("g", {}, front);
      el("line", { x1: x, x2: x, y1: py, y2: py + ph, stroke: own ? "#d32f2f" : "#455a64", "stroke-width": own ? 3 : 1.5 }, g);
      el("rect", { x: x - 4, y: py + 30, width: 8, height: 12, fill: own ? "#d32f2f" : "#455a64" }, g);
      addHover(g, { kind: "present", s: p.at, e: p.at, fid: p.frame_id, own: own });
    });
    y += ph + GAP;

    // the app's input events: each from its read to the present that showed it
    if (d.input.length) {
      var iy = y, ih = 2 * ROW + 4;
      laneHead("input", d.input.length + " events: read → present", iy, ih);
      d.input.forEach(function (e, n) {
        if (!seen(e.s, e.e)) return;
        var x0 = Math.max(X(e.s), LABEL_W), x1 = Math.min(X(e.e), W), w = Math.max(x1 - x0, 1);
        var g = el("g", {}, front);
        el("rect", { x: x0, y: iy + 2 + (n % 2) * ROW, width: w, height: ROW - 1, fill: e.shown ? "#80cbc4" : "#ffffff", stroke: "#00796b", "stroke-width": 1, "stroke-dasharray": e.shown ? "" : "3 2" }, g);
        if (w > 4) label(g, x0, iy + 2 + (n % 2) * ROW, w, ROW - 1, e.n || "input");
        addHover(g, { kind: "input", s: e.s, e: e.e, n: e.n, shown: e.shown });
      });
      y += ih + GAP;
    }

    // the critical path
    var cy = y, ch = 2 * ROW + 4;
    laneHead("critical path", d.path.length ? d.path.length + " segments" : "none computed for this frame", cy, ch);
    d.path.forEach(function (p) {
      var lane = d.lanes.filter(function (l) { return l.tid === p.tid; })[0];
      if (laneTop[p.tid] && seen(p.s, p.e)) {
        var lt = laneTop[p.tid];
        var hx0 = Math.max(X(p.s), LABEL_W), hx1 = Math.min(X(p.e), W);
        el("rect", { x: hx0, y: lt[0], width: Math.max(hx1 - hx0, 1), height: lt[1], fill: "#ffd54f", opacity: 0.45 }, back);
      }
      if (!seen(p.s, p.e)) return;
      var x0 = Math.max(X(p.s), LABEL_W), x1 = Math.min(X(p.e), W), w = Math.max(x1 - x0, 1);
      var g = el("g", {}, front);
      el("rect", { x: x0, y: cy + 2 + (p.depth % 2) * ROW, width: w, height: ROW - 1, fill: STATE_FILL[p.st], stroke: "#f9a825", "stroke-width": 1.5 }, g);
      var who = (lane ? lane.name : "thread " + p.tid) + (p.n ? ": " + p.n : "");
      if (w > 4) label(g, x0, cy + 2 + (p.depth % 2) * ROW, w, ROW - 1, who);
      addHover(g, { kind: "path", p: p, who: who });
    });
    y += ch + GAP;

    // the frame's span and the vsync ticks, over every lane
    var fEnd = Math.max(f.do_frame[0] + f.do_frame[1], f.draw ? f.draw[0] + f.draw[1] : 0);
    if (seen(zero, fEnd)) {
      var sx0 = Math.max(X(zero), LABEL_W), sx1 = Math.min(X(fEnd), W);
      back.insertBefore(el("rect", { x: sx0, y: AXIS, width: Math.max(sx1 - sx0, 0), height: y - AXIS, fill: "#eef3fb" }), back.firstChild);
    }
    d.ticks.forEach(function (t) {
      if (!seen(t, t)) return;
      var x = X(t), mine = f.vsync !== null && Math.abs(t - f.vsync) <= 1;
      var line = el("line", { x1: x, x2: x, y1: AXIS, y2: y, stroke: "#7e57c2", "stroke-width": mine ? 2 : 1, "stroke-dasharray": mine ? "" : "3 3", opacity: mine ? 0.9 : 0.55 }, front);
      addHover(line, { kind: "tick", s: t, e: t, mine: mine });
    });
    svg.setAttribute("width", W);
    svg.setAttribute("height", y);
    svg.setAttribute("viewBox", "0 0 " + W + " " + y);
  }

  function describe(h) {
    var f = frames[cur], zero = f.vsync !== null ? f.vsync : f.do_frame[0];
    var rel = function (t) { var v = (t - zero) / 1000; return (v >= 0 ? "+" : "") + v.toFixed(3) + " ms"; };
    var when = function (s, e) { return "start " + rel(s) + " (at " + atSecs(f, s) + ") · duration " + fmtDur(e - s); };
    var thread = function (l) { return l.name + " " + l.tid; };
    switch (h.kind) {
      case "slice": return h.n + " — " + thread(h.lane) + " · depth " + h.d + " · " + when(h.s, h.e);
      case "state": return L.states[h.st] + " — " + thread(h.lane) + " · " + when(h.s, h.e);
      case "path": return "critical path: " + L.states[h.p.st] + " — " + h.who + " (tid " + h.p.tid + ", " + h.p.hop + ", depth " + h.p.depth + ") · " + when(h.p.s, h.p.e);
      case "present": return (h.own ? "this frame's present" : "present") + " of " + (f.layer !== null ? S[f.layer] : "its layer") + (h.fid !== null ? " · vsync id " + h.fid : "") + " · at " + rel(h.s) + " (" + atSecs(f, h.s) + ")";
      case "timeline": return "FrameTimeline " + h.what + " surface frame · " + when(h.s, h.e);
      case "input": return "input " + (h.n || "event") + " · read " + rel(h.s) + " (at " + atSecs(f, h.s) + ") · " + (h.shown ? "presented after " : "not presented; FINISHED after ") + fmtDur(h.e - h.s);
      case "tick": return (h.mine ? "the frame's vsync" : "vsync") + " (" + f.ticks_from.replace("_", "-") + ") · at " + rel(h.s) + " (" + atSecs(f, h.s) + ")";
    }
    return "";
  }
  function infoAt(target) {
    var n = target && target.closest ? target.closest("[data-h]") : null;
    return n ? hover[+n.getAttribute("data-h")] : null;
  }
  svg.addEventListener("mousemove", function (e) {
    if (pinned || drag) return;
    var h = infoAt(e.target);
    if (h) detail.textContent = describe(h);
  });

  // ---- zoom and pan
  function clampView(a, b) {
    var len = Math.max(frames[cur].len, 1), w = Math.min(Math.max(b - a, 10), len);
    a = Math.min(Math.max(a, 0), len - w);
    v0 = a; v1 = a + w;
    render();
  }
  function zoomAt(center, factor) {
    clampView(center - (center - v0) * factor, center + (v1 - center) * factor);
  }
  function timeAt(clientX) {
    var r = svg.getBoundingClientRect(), PW = r.width - LABEL_W - 6;
    return v0 + Math.min(Math.max(clientX - r.left - LABEL_W, 0), PW) / PW * (v1 - v0);
  }
  function pan(frac) { var w = v1 - v0; clampView(v0 + w * frac, v1 + w * frac); }
  // The wheel zooms once the timeline has the focus (a click in it), or
  // with Ctrl held; otherwise it scrolls the page as everywhere else.
  view.addEventListener("wheel", function (e) {
    if (cur === null || !(e.ctrlKey || e.metaKey || document.activeElement === view)) return;
    e.preventDefault();
    if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) pan((e.deltaX || e.deltaY) / 1000);
    else zoomAt(timeAt(e.clientX), Math.exp(e.deltaY * 0.002));
  }, { passive: false });
  var drag = null;
  view.addEventListener("mousedown", function (e) {
    if (e.button !== 0 || e.shiftKey || cur === null) return;
    drag = { x: e.clientX, v0: v0, v1: v1, moved: false };
    e.preventDefault();
    view.focus();
  });
  window.addEventListener("mousemove", function (e) {
    if (!drag) return;
    var dx = e.clientX - drag.x;
    if (Math.abs(dx) > 3) drag.moved = true;
    if (!drag.moved) return;
    var r = svg.getBoundingClientRect(), per = (drag.v1 - drag.v0) / Math.max(r.width - LABEL_W - 6, 1);
    clampView(drag.v0 - dx * per, drag.v1 - dx * per);
  });
  window.addEventListener("mouseup", function (e) {
    if (!drag) return;
    var moved = drag.moved;
    drag = null;
    if (moved) return;
    var h = infoAt(e.target);
    pinned = h;
    detail.textContent = h ? describe(h) : "";
  });

  document.querySelectorAll("#frame-timeline .tl-bar button").forEach(function (b) {
    b.addEventListener("click", function () {
      var act = b.getAttribute("data-act"), mid = (v0 + v1) / 2;
      if (act === "prev") step(-1, true);
      else if (act === "next") step(1, true);
      else if (act === "in") zoomAt(mid, 0.5);
      else if (act === "out") zoomAt(mid, 2);
      else if (act === "fit") clampView(0, frames[cur].len);
    });
  });
  function timelineInView() {
    var r = view.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  }
  document.addEventListener("keydown", function (e) {
    if (e.ctrlKey || e.metaKey || e.altKey || cur === null) return;
    var tag = e.target && e.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT") return;
    var mid = (v0 + v1) / 2, done = true;
    switch (e.key) {
      case "j": step(1, true); break;
      case "k": step(-1, true); break;
      case "n": step(1, false); break;
      case "p": step(-1, false); break;
      default:
        if (!timelineInView()) return;
        if (e.key === "+" || e.key === "=") zoomAt(mid, 0.5);
        else if (e.key === "-" || e.key === "_") zoomAt(mid, 2);
        else if (e.key === "0") clampView(0, frames[cur].len);
        else if (e.key === "ArrowLeft") pan(-0.2);
        else if (e.key === "ArrowRight") pan(0.2);
        else done = false;
    }
    if (done) e.preventDefault();
  });

  // ---- the worst-frames tables and the address
  document.querySelectorAll("tr[data-frame]").forEach(function (tr) {
    tr.style.cursor = "pointer";
    tr.addEventListener("click", function (e) {
      if (e.target.closest("a")) return;
      select(byIndex[tr.getAttribute("data-frame")], true);
    });
  });
  function fromHash(scroll) {
    var m = /^#frame=(\d+)$/.exec(location.hash);
    if (m && byIndex[m[1]] !== undefined) { select(byIndex[m[1]], scroll); return true; }
    return false;
  }
  window.addEventListener("hashchange", function () { fromHash(true); });
  window.addEventListener("resize", function () { render(); });
  // Without a frame in the address, the worst frame, and the page stays at its top.
  if (!fromHash(true)) select(0, false, false);
})();
