#!/usr/bin/env node
// node-sun: a small Baloot engine in plain Node.js (no npm packages) that speaks
// baloot-protocol/1 (conformance/PROTOCOL.md). It is an example of a third-party engine:
//
//   baloot conformance run --engine "node conformance/engines/node-sun/engine.js"
//
// It implements one contract, Sun, from the deal to the last trick: the first pass of round one
// and the Sun take-over (enough bidding to reach a Sun position), the Sun doubling, and trick
// play. It claims only those features in its hello. What it meets outside them it answers with
// `skipped` (a Hokum or Ashkal bid, round two, project declarations, scoring).
//
// It has three DELIBERATE departures from the rules, so that its report shows real failures
// (conformance/engines/node-sun/README.md lists the cases each one fails):
//
//   D1 follow-suit: a player who holds exactly ONE card of the led suit may keep it and play
//      any card (an off-by-one: `count > 1` instead of `count > 0`). The rules: follow suit
//      whenever you can (play.follow-suit).
//   D2 trick-order: the winner of a trick is found with the sequence order A K Q J T 9 8 7, so
//      a Ten loses to a King, Queen or Jack of its suit. The rules: A T K Q J 9 8 7 in Sun.
//   D3 refusal-id: a Double that the match scores forbid is refused as `double.wrong-step`.
//      The rules name `double.sun.scores`.
"use strict";

const readline = require("readline");

const PROTOCOL = "baloot-protocol/1";
const ORDER = ["N", "W", "S", "E"];                 // counter-clockwise: the player after N is W
const TEAM = { N: "NS", S: "NS", E: "EW", W: "EW" };
const RANKS = "AKQJT987";
const SUITS = "SHDC";
const SUN_ORDER = "ATKQJ987";                        // strongest first (the rules)
const DEPARTED_ORDER = "AKQJT987";                   // D2: what this engine uses for the winner
const POINTS = { A: 11, T: 10, K: 4, Q: 3, J: 2, "9": 0, "8": 0, "7": 0 };
const CALLS = ["pass", "hokum", "sun", "ashkal", "kawesh"];
const WORDS = ["pass", "double", "triple", "four", "gahwa"];
const KNOBS = { first_lead: ["dealer_right", "buyer"], sun_double_allowed: ["de", "nl", "smsf"] };
const DEFAULTS = { first_lead: "dealer_right", sun_double_allowed: "de" };

class Refusal extends Error {
  constructor(rule, message) { super(message); this.rule = rule; }
}
class Skip extends Error {}

const next = (seat) => ORDER[(ORDER.indexOf(seat) + 1) % 4];

function card(text) {
  if (typeof text !== "string") return null;
  let t = text.trim().toUpperCase();
  if (t.startsWith("10")) t = "T" + t.slice(2);
  if (t.length !== 2 || !RANKS.includes(t[0]) || !SUITS.includes(t[1])) return null;
  return t;
}

class Hand {
  constructor(variant, dealer, deal, scores) {
    if (variant.preset !== "default") throw new Skip(`preset ${variant.preset} is not implemented`);
    this.knobs = Object.assign({}, DEFAULTS);
    for (const [name, value] of Object.entries(variant.set || {})) {
      if (!(name in KNOBS) || !KNOBS[name].includes(value)) throw new Skip(`knob ${name}=${JSON.stringify(value)} is not implemented`);
      this.knobs[name] = value;
    }
    if ((variant.overlays || []).length) throw new Skip("overlays are not implemented");
    if (!ORDER.includes(dealer)) throw new Error(`unknown dealer ${dealer}`);
    this.scores = scores || { NS: 0, EW: 0 };
    this.positions = [next(dealer), next(next(dealer)), next(next(next(dealer))), dealer];  // p1..p4
    this.hands = {}; this.rest = {};
    if (deal.deck) {
      const deck = deal.deck.map(card);
      if (deck.length !== 32 || deck.includes(null) || new Set(deck).size !== 32) throw new Error("a deck is 32 different cards");
      this.deck = deck;
      this.positions.forEach((seat, i) => {
        this.hands[seat] = deck.slice(3 * i, 3 * i + 3).concat(deck.slice(12 + 2 * i, 14 + 2 * i));
      });
      this.publicCard = deck[20];
    } else {
      this.publicCard = card(deal.public);
      for (const seat of ORDER) {
        const cards = (deal.hands[seat] || []).map(card);
        if (cards.includes(null) || (cards.length !== 5 && cards.length !== 8)) throw new Error(`${seat} must hold 5 or 8 cards`);
        this.hands[seat] = cards.slice(0, 5);
        this.rest[seat] = cards.slice(5);
      }
    }
    this.phase = "bidding";
    this.stage = "first";        // 'first' pass, then 'chance' for the players before a Sun
    this.pos = 0;                // index into positions of the next speaker
    this.bid = null; this.bidder = null;
    this.buyer = null;
    this.trick = []; this.tricks = 0; this.leader = null;
    this.points = { NS: 0, EW: 0 };
  }

  position(seat) { return this.positions.indexOf(seat) + 1; }

  turn() {
    if (this.phase === "bidding") return this.positions[this.pos];
    if (this.phase === "doubling") return this.asked;
    if (this.phase === "play") return this.trick.length ? next(this.trick[this.trick.length - 1].seat) : this.leader;
    return null;
  }

  // ---- legality: the refusal id of an event, or null ------------------------------------------
  refusal(event) {
    if (this.phase === "over") return ["phase.wrong-action", "the hand is over"];
    const seat = this.turn();
    if (event.seat !== seat) return ["turn.out-of-turn", `it is ${seat}'s turn`];
    const type = { bidding: "bid", doubling: "double", play: "play" }[this.phase];
    if (event.type !== type) return ["phase.wrong-action", `a ${event.type} is not an action of the ${this.phase} phase`];
    if (this.phase === "bidding") return this.bidRefusal(seat, event.call);
    if (this.phase === "doubling") return this.doubleRefusal(seat, event.call, event.closed === undefined ? false : event.closed);
    return this.playRefusal(seat, event);
  }

  bidRefusal(seat, call) {
    if (!CALLS.includes(call)) return ["phase.wrong-action", `call must be one of ${CALLS.join(", ")}`];
    if (call === "hokum" && (this.bid !== null || this.stage !== "first")) return ["bid.hokum.after-bid", "a bid stands"];
    if (call === "sun" && this.bid === "sun" && this.stage !== "chance") return ["bid.sun.after-sun", "a Sun stands"];
    if (call === "ashkal") {
      if (this.position(seat) < 3) return ["bid.ashkal.seat", "only the third player or the dealer"];
      if (this.bid !== null) return ["bid.ashkal.after-bid", "only if everybody before passed"];
      if (this.stage !== "first") return ["bid.ashkal.in-chance", "not in the second chance"];
    }
    if (call === "kawesh") return ["bid.kawesh.disabled", "no Kawesh in this variant"];
    return null;
  }

  doubleAllowed(seat) {
    const s = this.scores, hi = Math.max(s.NS, s.EW), lo = Math.min(s.NS, s.EW);
    switch (this.knobs.sun_double_allowed) {
      case "nl": return hi > 100 && lo <= 100;
      case "smsf": return s[TEAM[seat]] <= 100 && s[TEAM[this.buyer]] > 100;
      default: return hi > 100 && lo < 100;
    }
  }

  doubleRefusal(seat, call, closed) {
    if (!WORDS.includes(call) || typeof closed !== "boolean") return ["phase.wrong-action", "call must be a raise word, closed true or false"];
    // D3: the scores condition is reported with the generic step id
    if (call === "double" && !this.doubleAllowed(seat)) return ["double.wrong-step", "a Sun may not be doubled now"];
    if (call !== "pass" && call !== "double") return ["double.wrong-step", "a Sun is only doubled"];
    if (closed) return ["double.closed-choice", "no closed play in Sun"];
    return null;
  }

  mustFollow(seat) {
    if (!this.trick.length) return false;
    const led = this.trick[0].card[1];
    const held = this.hands[seat].filter((c) => c[1] === led).length;
    return held > 1;                                  // D1: should be held > 0
  }

  playRefusal(seat, event) {
    const c = card(event.card);
    if (c === null) return ["phase.wrong-action", `not a card: ${JSON.stringify(event.card)}`];
    if (!this.hands[seat].includes(c)) return ["play.not-in-hand", `${seat} does not hold ${c}`];
    for (const flag of ["ekka", "baloot"]) {
      if (event[flag] !== undefined && typeof event[flag] !== "boolean") return ["phase.wrong-action", `'${flag}' is true or false`];
    }
    if (event.declare !== undefined && !(Array.isArray(event.declare) && event.declare.every((n) => typeof n === "string"))) {
      return ["phase.wrong-action", "'declare' is a list of names"];
    }
    if (this.mustFollow(seat) && c[1] !== this.trick[0].card[1]) return ["play.follow-suit", `${seat} must follow suit`];
    if (event.ekka) return ["play.ekka.not-highest", "no Ekka in Sun"];
    if (event.baloot) return ["play.baloot.invalid", "no Baloot in Sun"];
    if (event.declare && event.declare.length && this.tricks > 0) return ["play.declare.not-first-trick", "projects only with the first card"];
    return null;
  }

  legal() {
    const seat = this.turn();
    if (seat === null) return [];
    if (this.phase === "bidding") return CALLS.filter((call) => !this.bidRefusal(seat, call)).map((call) => ({ type: "bid", call }));
    if (this.phase === "doubling") {
      return ["pass", "double"].filter((call) => !this.doubleRefusal(seat, call, false)).map((call) => ({ type: "double", call, closed: false }));
    }
    let cards = this.hands[seat];
    if (this.mustFollow(seat)) cards = cards.filter((c) => c[1] === this.trick[0].card[1]);
    return cards.map((c) => ({ type: "play", card: c }));
  }

  // ---- applying a legal event -----------------------------------------------------------------
  apply(event) {
    const refused = this.refusal(event);
    if (refused) throw new Refusal(refused[0], refused[1]);
    if (this.phase === "bidding") return this.applyBid(event.seat, event.call);
    if (this.phase === "doubling") return this.applyDouble(event.seat, event.call);
    if (event.declare && event.declare.length) throw new Skip("project declarations are not implemented");
    return this.applyPlay(event.seat, card(event.card));
  }

  applyBid(seat, call) {
    if (call === "hokum" || call === "ashkal") throw new Skip(`a ${call} bid is not implemented (node-sun plays Sun only)`);
    if (this.stage === "chance") {
      if (call === "sun") return this.buy(seat);
      this.pos += 1;
      if (this.pos + 1 >= this.position(this.bidder)) return this.buy(this.bidder);
      return;
    }
    if (call === "sun") {                            // the later players are skipped; the earlier ones asked
      this.bid = "sun"; this.bidder = seat;
      if (this.position(seat) === 1) return this.buy(seat);
      this.stage = "chance"; this.pos = 0;
      return;
    }
    this.pos += 1;
    if (this.pos === 4) throw new Skip("round two of the bidding is not implemented");
  }

  buy(seat) {
    this.buyer = seat;
    if (this.deck) {
      let i = 21;
      for (const p of this.positions) {
        if (p === seat) { this.hands[p].push(this.publicCard, this.deck[i], this.deck[i + 1]); i += 2; }
        else { this.hands[p].push(...this.deck.slice(i, i + 3)); i += 3; }
      }
    } else {
      for (const p of ORDER) this.hands[p].push(...this.rest[p]);
      if (!this.hands[seat].includes(this.publicCard)) this.hands[seat].push(this.publicCard);
    }
    this.opponents = this.positions.filter((p) => TEAM[p] !== TEAM[seat]);
    this.phase = "doubling";
    this.asked = this.opponents[0];
  }

  applyDouble(seat, call) {
    if (call === "pass" && seat === this.opponents[0]) { this.asked = this.opponents[1]; return; }
    this.startPlay();
  }

  startPlay() {
    this.phase = "play";
    this.asked = null;
    this.leader = this.knobs.first_lead === "buyer" ? this.buyer : this.positions[0];
  }

  applyPlay(seat, c) {
    this.hands[seat] = this.hands[seat].filter((x) => x !== c);
    this.trick.push({ seat, card: c });
    if (this.trick.length < 4) return;
    const led = this.trick[0].card[1];
    let best = this.trick[0];
    for (const play of this.trick) {                 // D2: DEPARTED_ORDER instead of SUN_ORDER
      if (play.card[1] === led && DEPARTED_ORDER.indexOf(play.card[0]) < DEPARTED_ORDER.indexOf(best.card[0])) best = play;
    }
    this.points[TEAM[best.seat]] += this.trick.reduce((sum, p) => sum + POINTS[p.card[0]], 0);
    this.tricks += 1;
    this.trick = [];
    this.leader = best.seat;
    if (this.tricks === 8) { this.points[TEAM[best.seat]] += 10; this.phase = "over"; }
  }
}

// ---- the protocol ---------------------------------------------------------------------------------
let hand = null;

const handlers = {
  hello: () => ({
    protocol: PROTOCOL,
    engine: { name: "node-sun", version: "0.1.0", notes: "Sun only; three deliberate departures (see engine.js)" },
    presets: ["default"],
    knobs: KNOBS,
    features: ["deal.order", "bidding.first-pass", "bidding.sun-takeover", "doubling.sun",
               "play.turn", "play.follow-suit", "play.trick-winner"],
    commands: ["new_hand", "apply", "query"],
  }),
  new_hand: (req) => { hand = new Hand(req.variant, req.dealer, req.deal, req.match_scores); return { ok: true }; },
  apply: (req) => {
    if (!hand) throw new Error("no hand: send new_hand first");
    const results = [];
    for (const event of req.events) {
      try {
        hand.apply(event);
        results.push({ accepted: true });
      } catch (err) {
        if (!(err instanceof Refusal)) throw err;
        results.push({ accepted: false, rule: err.rule, message: err.message });
        break;
      }
    }
    return { results };
  },
  query: (req) => {
    if (!hand) throw new Error("no hand: send new_hand first");
    const out = {};
    for (const item of req.what || ["turn", "phase", "legal", "result"]) {
      if (item === "turn") out.turn = hand.turn();
      else if (item === "phase") out.phase = hand.phase;
      else if (item === "legal") out.legal = hand.legal();
      else if (item === "result") {
        if (hand.phase === "over") throw new Skip("scoring is not implemented");
        out.result = null;
      }
    }
    return out;
  },
  stop: () => { setImmediate(() => process.exit(0)); return { ok: true }; },
};

function answer(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch (err) {
    return { seq: null, errored: `unreadable request: ${err.message}` };
  }
  const handler = handlers[req.cmd];
  if (!handler) return { seq: req.seq, skipped: `command ${req.cmd} is not implemented` };
  try {
    return Object.assign({ seq: req.seq }, handler(req));
  } catch (err) {
    if (err instanceof Skip) return { seq: req.seq, skipped: err.message };
    return { seq: req.seq, errored: `${err.name}: ${err.message}` };
  }
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on("line", (line) => {
  if (line.trim()) process.stdout.write(JSON.stringify(answer(line)) + "\n");
});
rl.on("close", () => process.exit(0));
