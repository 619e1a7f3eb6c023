// The HTML replay's behaviour: reads the embedded JSON (made by baloot_spec/replay_html) and
// draws one position of one hand; buttons, arrow keys and clicks move through the frames.
(function () {
  "use strict";
  var DATA = JSON.parse(document.getElementById("replay-data").textContent);
  var SUITS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };
  var RED = { H: true, D: true };
  var SEATS = ["N", "W", "S", "E"];
  var state = { log: 0, hand: 0, pos: 0 };

  function $(id) { return document.getElementById(id); }
  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined && text !== null) { node.textContent = text; }
    return node;
  }
  function words(value) {
    if (value === null || value === undefined) { return "nobody"; }
    if (value === true) { return "yes"; }
    if (value === false) { return "no"; }
    if (Array.isArray(value)) { return value.length ? value.map(words).join(", ") : "none"; }
    if (typeof value === "object") { return Object.keys(value).map(function (k) { return k + " " + words(value[k]); }).join(", "); }
    return String(value);
  }
  function cardEl(text, extra) {
    var node = el("div", "card" + (extra ? " " + extra : ""));
    node.setAttribute("data-card", text);
    var suit = text.slice(-1), rank = text.slice(0, -1);
    if (!SUITS[suit]) { node.textContent = text; return node; }
    node.classList.add(RED[suit] ? "red" : "black");
    node.title = text;
    node.appendChild(el("span", "r", rank === "T" ? "10" : rank));
    node.appendChild(el("span", "s", SUITS[suit]));
    node.appendChild(el("span", "pip", SUITS[suit]));
    return node;
  }
  function eventText(action) {
    if (!action) { return ""; }
    var parts = [action.seat, action.type === "play" ? "plays" : (action.type === "bid" ? "bids" : action.type + ":")];
    Object.keys(action).forEach(function (k) {
      if (k === "seat" || k === "type") { return; }
      var v = action[k];
      if (v === false || v === null || (Array.isArray(v) && !v.length)) { return; }
      if (v === true) { parts.push(k); } else if (Array.isArray(v)) { parts.push(k + " " + v.join(",")); } else { parts.push(String(v)); }
    });
    return parts.join(" ");
  }
  function log() { return DATA.logs[state.log]; }
  function hand() { return log().hands[state.hand]; }
  function frames() { return hand().frames || []; }

  function go(hand, pos) {
    var hands = log().hands;
    state.hand = Math.max(0, Math.min(hands.length - 1, hand));
    var n = frames().length;
    state.pos = Math.max(0, Math.min(Math.max(n - 1, 0), pos));
    draw();
  }
  function step(delta) { go(state.hand, state.pos + delta); }
  function trickStep(delta) {
    var fs = frames(), i = state.pos + delta;
    while (i > 0 && i < fs.length - 1 && !fs[i].won_by) { i += delta; }
    go(state.hand, i);
  }

  function drawHeader() {
    var entry = log();
    $("meta").textContent = entry.log + " \u00b7 preset " + entry.variant.preset + " \u00b7 variant " + entry.variant.hash;
    var tabs = $("hand-tabs");
    tabs.textContent = "";
    entry.hands.forEach(function (story, k) {
      var b = el("button", k === state.hand ? "current" : "", "Hand " + story.hand);
      if (story.refused && story.refused.length) { b.classList.add("has-violation"); b.title = "illegal actions in this hand"; }
      else if (story.stopped) { b.classList.add("has-violation"); b.title = "not replayed to its end: " + story.stopped; }
      b.addEventListener("click", function () { go(k, 0); });
      tabs.appendChild(b);
    });
  }

  function drawTable() {
    var story = hand(), fs = frames(), frame = fs[state.pos], next = fs[state.pos + 1];
    var contract = story.contract || {};
    SEATS.forEach(function (seat) {
      var box = document.querySelector(".seat-" + seat);
      box.textContent = "";
      box.className = "seat seat-" + seat;
      var label = seat + (story.dealer === seat ? " \u00b7 dealer" : "") + (contract.buyer === seat ? " \u00b7 buyer" : "");
      box.appendChild(el("div", "seat-label", label));
      var cards = el("div", "cards");
      var legal = {};
      if (next && next.turn_before === seat && next.legal) {
        box.classList.add("to-act");
        next.legal.forEach(function (a) { legal[a.split(" ")[0]] = true; });
      }
      if (frame && frame.violation && frame.action && frame.action.seat === seat) { box.classList.add("acted-badly"); }
      ((frame && frame.hands[seat]) || []).forEach(function (c) { cards.appendChild(cardEl(c, legal[c] ? "legal" : "")); });
      box.appendChild(cards);
    });
    var pub = $("public");
    pub.textContent = "";
    pub.className = frame && frame.tricks_done + frame.trick.length > 0 ? "taken" : "";
    if (story.deal && story.deal.public) {
      pub.appendChild(el("div", "", "public card"));
      pub.appendChild(cardEl(story.deal.public, "small"));
    }
    var trick = $("trick");
    trick.textContent = "";
    var caption = "";
    if (frame) {
      frame.trick.forEach(function (p) {
        var slot = el("div", "slot slot-" + p.seat + (frame.won_by === p.seat ? " winner" : ""));
        var justPlayed = frame.action && frame.action.type === "play" && frame.action.seat === p.seat && frame.action.card === p.card;
        slot.appendChild(cardEl(p.card, justPlayed ? (frame.violation ? "illegal" : "played-now") : ""));
        slot.appendChild(el("div", "who", p.seat));
        trick.appendChild(slot);
      });
      if (frame.won_by) {
        var t = (story.tricks || [])[frame.tricks_done - 1];
        caption = "trick " + frame.tricks_done + " won by " + frame.won_by + (t && t.points !== null ? " (" + t.points + " points)" : "");
      } else if (frame.trick.length) {
        caption = "trick " + (frame.tricks_done + 1);
      } else {
        caption = frame.phase;
      }
    }
    $("trick-caption").textContent = caption;
  }

  function drawStatus() {
    var story = hand(), fs = frames(), frame = fs[state.pos], next = fs[state.pos + 1];
    var events = fs.length ? fs.length - 1 : 0;
    $("position").textContent = fs.length ? ("event " + state.pos + " of " + events + (frame && frame.tricks_done ? " \u00b7 " + frame.tricks_done + " tricks" : "")) : "no events";
    $("prev").disabled = $("first").disabled = $("prev-trick").disabled = state.pos === 0;
    $("next").disabled = $("last").disabled = $("next-trick").disabled = state.pos >= events;
    var now = $("now");
    if (!fs.length) {
      now.textContent = story.stopped ? "Not replayed: " + story.stopped : "";
    } else if (frame && frame.action) {
      now.textContent = eventText(frame.action);
    } else {
      now.textContent = "Hand " + story.hand + ": dealt by " + story.dealer;
    }
    var legal = $("legal");
    legal.textContent = "";
    if (next && next.legal && next.legal.length) {
      legal.appendChild(document.createTextNode("legal for " + next.turn_before + ": "));
      next.legal.forEach(function (a) { legal.appendChild(el("span", "opt", a)); });
    } else if (!next && story.stopped && fs.length) {
      legal.textContent = "stopped: " + story.stopped;
    } else if (!next && fs.length) {
      legal.textContent = story.thrown_in ? "thrown in: the deal passes to " + story.next_dealer : "the hand is over";
    }
    var box = $("violation");
    box.textContent = "";
    box.hidden = !(frame && frame.violation);
    if (frame && frame.violation) {
      var v = frame.violation;
      var head = el("div");
      head.appendChild(el("strong", "", "Illegal: "));
      head.appendChild(el("span", "rule", v.rule));
      box.appendChild(head);
      box.appendChild(el("div", "", v.message));
      if (v.source) { box.appendChild(el("blockquote", "", v.source)); }
      if (v.legal) { box.appendChild(el("div", "", "Legal instead: " + v.legal)); }
      if (v.after) { box.appendChild(el("div", "", "(follows the earlier violation at " + v.after + ")")); }
    }
  }

  function drawEvents() {
    var list = $("events"), fs = frames();
    list.textContent = "";
    fs.forEach(function (f, i) {
      if (i === 0) { return; }
      var li = el("li", "", eventText(f.action));
      if (f.violation) { li.classList.add("bad"); li.title = f.violation.rule + ": " + f.violation.message; }
      if (f.won_by) { li.classList.add("trick-end"); li.textContent += "  \u2192 " + f.won_by; }
      if (i === state.pos) { li.classList.add("current"); }
      li.addEventListener("click", function () { go(state.hand, i); });
      list.appendChild(li);
    });
    var current = list.querySelector(".current");
    if (current && current.scrollIntoView) { current.scrollIntoView({ block: "nearest" }); }
  }

  function drawScoring() {
    var story = hand(), box = $("scoring");
    box.textContent = "";
    if (story.thrown_in) { box.appendChild(el("p", "", "Thrown in: nobody bought, nothing is written. The deal passes to " + story.next_dealer + ".")); return; }
    if (!story.scoring) { box.appendChild(el("p", "", story.stopped ? "Not scored: " + story.stopped : "Not scored.")); return; }
    var f = story.facts, facts = el("div", "facts");
    [["contract", f.mode + (story.contract && story.contract.trump ? " " + story.contract.trump : "")], ["buyer", f.buyer],
     ["card points", words(f.card_points)], ["tricks", words(f.tricks)], ["projects", words(f.projects)], ["baloot", words(f.baloot)]]
      .forEach(function (p) { var s = el("span"); s.appendChild(el("b", "", p[0] + ": ")); s.appendChild(document.createTextNode(p[1])); facts.appendChild(s); });
    box.appendChild(facts);
    var list = el("ol");
    story.scoring.forEach(function (s) {
      var li = el("li", "", s.words);
      li.title = s.step + ": " + s.name + " = " + words(s.value);
      if (s.source) { li.appendChild(el("span", "src", s.step + " \u00b7 " + s.source)); }
      list.appendChild(li);
    });
    box.appendChild(list);
  }

  function drawSheet() {
    var sheet = log().sheet, box = $("sheet");
    box.textContent = "";
    if (!sheet) { return; }
    var table = el("table", "sheet"), head = el("tr");
    ["#", "dealer", "contract", "buyer", "doubled", "card points", "projects / baloot", "written", "match", "in words"].forEach(function (h) { head.appendChild(el("th", "", h)); });
    table.appendChild(head);
    sheet.hands.forEach(function (line, k) {
      var tr = el("tr", k === state.hand ? "current" : "");
      if (line.violations) { tr.classList.add("bad"); }
      var cells;
      if (line.card_points) {
        var extras = sheet.teams.filter(function (t) { return (line.projects[t] || []).length || line.baloot[t]; })
          .map(function (t) { return t + " " + (line.projects[t] || []).concat(line.baloot[t] ? ["baloot"] : []).join(", "); }).join("; ");
        cells = [line.hand, line.dealer, line.contract.mode + (line.contract.trump ? " " + line.contract.trump : ""),
                 line.buyer + " (" + line.buyer_team + ")",
                 line.doubling.raises.length ? line.doubling.raises.join(" ") + (line.doubling.closed ? " closed" : "") : "-",
                 words(line.card_points), extras || "-", words(line.written), line.match ? words(line.match) : "?"];
      } else {
        cells = [line.hand, line.dealer, line.thrown_in ? "thrown in" : "not replayed", "", "", "", "", "", line.match ? words(line.match) : "?"];
      }
      cells.forEach(function (c, i) { var td = el("td", "", c); if (i === 7) { td.setAttribute("data-written", JSON.stringify(line.written || null)); } tr.appendChild(td); });
      var said = (line.outcome || []).slice();
      if (line.stopped && !said.length) { said.push("not replayed: " + line.stopped); }
      if (line.violations) { said.push("illegal: " + line.violations.join(", ")); }
      tr.appendChild(el("td", "outcome", said.join(" ")));
      tr.addEventListener("click", function () { go(k, 0); });
      table.appendChild(tr);
    });
    box.appendChild(table);
    var r = sheet.result, text;
    if (r.winner) { text = "Match won by " + r.winner + ", " + words(r.scores) + "."; }
    else if (r.scores) { text = "No winner yet: " + words(r.scores) + (r.complete ? "" : " (a hand could not be replayed)") + "."; }
    else { text = "The match score is unknown."; }
    var result = el("div", "result", text);
    result.id = "sheet-result";
    result.setAttribute("data-scores", JSON.stringify(r.scores));
    box.appendChild(result);
  }

  function drawFindings() {
    var entry = log(), box = $("findings");
    box.textContent = "";
    if (!entry.violations.length && !entry.notes.length) { box.appendChild(el("p", "", "The audit finds nothing: every action legal, every claimed score right.")); return; }
    var list = el("ul");
    entry.violations.forEach(function (v) {
      list.appendChild(el("li", "violation", v.path + ": " + v.rule + ": " + v.message + (v.source ? "  (" + v.source + ")" : "")));
    });
    entry.notes.forEach(function (n) { list.appendChild(el("li", "note", "note: " + n)); });
    box.appendChild(list);
  }

  function draw() {
    drawHeader(); drawTable(); drawStatus(); drawEvents(); drawScoring(); drawSheet(); drawFindings();
    document.body.setAttribute("data-hand", String(state.hand + 1));
    document.body.setAttribute("data-pos", String(state.pos));
  }

  function setup() {
    var select = $("log-select");
    DATA.logs.forEach(function (entry, i) { var o = el("option", "", entry.log); o.value = String(i); select.appendChild(o); });
    select.hidden = DATA.logs.length < 2;
    select.addEventListener("change", function () { state.log = Number(select.value); go(0, 0); });
    $("first").addEventListener("click", function () { go(state.hand, 0); });
    $("last").addEventListener("click", function () { go(state.hand, frames().length - 1); });
    $("prev").addEventListener("click", function () { step(-1); });
    $("next").addEventListener("click", function () { step(1); });
    $("prev-trick").addEventListener("click", function () { trickStep(-1); });
    $("next-trick").addEventListener("click", function () { trickStep(1); });
    document.addEventListener("keydown", function (e) {
      if (e.target && e.target.tagName === "SELECT") { return; }
      var keys = { ArrowRight: function () { step(1); }, ArrowLeft: function () { step(-1); },
                   ArrowDown: function () { trickStep(1); }, ArrowUp: function () { trickStep(-1); },
                   PageDown: function () { go(state.hand + 1, 0); }, PageUp: function () { go(state.hand - 1, 0); },
                   Home: function () { go(state.hand, 0); }, End: function () { go(state.hand, frames().length - 1); } };
      if (keys[e.key]) { e.preventDefault(); keys[e.key](); }
    });
    var hash = /^#hand-(\d+)(?:-(\d+))?$/.exec(window.location.hash || "");
    if (hash) { go(Number(hash[1]) - 1, Number(hash[2] || 0)); } else { go(0, 0); }
  }

  window.balootReplay = { go: go, state: state, data: DATA };
  setup();
}());
