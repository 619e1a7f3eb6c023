// baloot-protocol/1 adapter for Motl1234/majlis-baloot (lib/baloot/*.ts).
//
// Translation only: seats, cards, calls and the deal are translated to the engine's notions,
// and every Baloot question is answered by the engine's own functions (startMatch,
// applyGameAction, legalBids, legalDoubleCalls, legalCards, evaluateProjects). Where the engine
// has no notion of ours, the adapter answers `skipped` or does not claim it in `hello`.
// Built by build.sh (esbuild resolves "majlis-engine/..." to the engine's lib/baloot folder).
import * as readline from "node:readline";
import { applyGameAction, startMatch } from "majlis-engine/engine.ts";
import { legalBids, legalCards, legalDoubleCalls, scoreRound, trickRawValue } from "majlis-engine/rules.ts";
import { evaluateProjects } from "majlis-engine/projects.ts";
import { sortHand } from "majlis-engine/cards.ts";

type Json = any;

// Seat indices: the engine's nextSeat is seat+1 and it deals from nextSeat(dealer), so its seat
// order is the play order. Ours is counter-clockwise N -> W -> S -> E, hence 0=N 1=W 2=S 3=E.
// Its teams are seat % 2: team 0 = N,S = NS; team 1 = W,E = EW.
const SEATS = ["N", "W", "S", "E"];
const TEAMS = ["NS", "EW"];
const SUIT_OF: Record<string, string> = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
const SUIT_LETTER: Record<string, string> = { spades: "S", hearts: "H", diamonds: "D", clubs: "C" };
const RANK_OF: Record<string, string> = { "7": "7", "8": "8", "9": "9", T: "10", J: "J", Q: "Q", K: "K", A: "A" };
const RANK_LETTER: Record<string, string> = { "7": "7", "8": "8", "9": "9", "10": "T", J: "J", Q: "Q", K: "K", A: "A" };
// The engine's project kinds and our project names (README "Kind projects").
const PROJECT_NAME: Record<string, string> = {
  sequence_three: "sira", sequence_four: "50", sequence_hundred: "100",
  four_kind_hundred: "100", four_hundred: "400",
};
// Our raise words and the engine's double calls.
const DOUBLE_TO_ENGINE: Record<string, string> = { pass: "pass", double: "double", triple: "triple", four: "four", gahwa: "coffee" };
const DOUBLE_FROM_ENGINE: Record<string, string> = { pass: "pass", double: "double", triple: "triple", four: "four", coffee: "gahwa" };

class Skip extends Error {}
class BadInput extends Error {}

function seatIndex(seat: string): number {
  const i = SEATS.indexOf(seat);
  if (i < 0) throw new BadInput(`unknown seat ${JSON.stringify(seat)}`);
  return i;
}

function engineCard(text: string): Json {
  const t = String(text).toUpperCase().replace(/^10/, "T");
  const rank = RANK_OF[t.slice(0, -1)];
  const suit = SUIT_OF[t.slice(-1)];
  if (t.length !== 2 || !rank || !suit) throw new BadInput(`unreadable card ${JSON.stringify(text)}`);
  return { id: `${suit}-${rank}`, rank, suit };
}

function ourCard(card: Json): string {
  return RANK_LETTER[card.rank] + SUIT_LETTER[card.suit];
}

// ---- the hand being played -------------------------------------------------------------------

let state: Json = null;
// With a hands-form deal the engine's completion (it deals the rest from its deck) would not
// give each seat the cards the case says: once the contract is settled the adapter puts the
// case's 8-card hands in place and lets the engine evaluate their projects again.
let givenHands: Json = null;

function deckFromHands(deal: Json, dealer: number): Json[] {
  // The engine deals 3 then 2 cards from the dealer's right, then turns the next card up
  // (README "A case file": the same order as our deck form).
  const order = [1, 2, 3, 0].map((k) => (dealer + k) % 4);
  const hands = order.map((s) => (deal.hands[SEATS[s]] ?? []).map(engineCard));
  if (hands.some((h: Json[]) => h.length < 5)) throw new BadInput("a hands-form deal needs 5 or 8 cards per seat");
  const deck: Json[] = [];
  for (const [from, n] of [[0, 3], [3, 2]]) for (const h of hands) deck.push(...h.slice(from, from + n));
  deck.push(engineCard(deal.public));
  const used = new Set(deck.map((c) => c.id));
  // The rest of the deck in any order: the completion is replaced by the given hands.
  for (const h of hands) for (const c of h.slice(5)) if (!used.has(c.id)) { deck.push(c); used.add(c.id); }
  for (const suit of Object.values(SUIT_OF)) for (const rank of Object.values(RANK_OF)) {
    const id = `${suit}-${rank}`;
    if (!used.has(id)) { deck.push({ id, rank, suit }); used.add(id); }
  }
  return deck;
}

function newHand(req: Json): Json {
  givenHands = null;
  if (req.position) return newHandFromPosition(req.position);
  const dealer = seatIndex(req.dealer);
  const deal = req.deal ?? {};
  if (deal.exposed) throw new Skip("the engine has no exposed card while dealing");
  let deck: Json[];
  if (deal.deck) deck = deal.deck.map(engineCard);
  else {
    deck = deckFromHands(deal, dealer);
    if (Object.values(deal.hands).every((h: Json) => h.length === 8)) givenHands = deal.hands;
  }
  state = startMatch(dealer as Json, deck);
  const ms = req.match_scores ?? { NS: 0, EW: 0 };
  state.matchScores = [ms.NS ?? 0, ms.EW ?? 0];
  return { ok: true };
}

function contractFromPosition(c: Json): Json {
  const level = c.level ?? 1;
  const doubler = c.doubler == null ? null : seatIndex(c.doubler);
  const buyer = seatIndex(c.buyer);
  // riskTaker: the engine's notion of who last raised (bidder, doubler, bidder, doubler ...),
  // set here as its applyDouble sets it after the same raise words.
  const words: string[] = c.doubling ?? [];
  let riskTaker = buyer;
  for (const w of words) riskTaker = w === "double" || w === "four" ? (doubler ?? buyer) : buyer;
  return {
    bidder: buyer,
    receiver: seatIndex(c.taker ?? c.buyer),
    kind: c.mode === "sun" ? "sun" : "hokom",
    trump: c.trump ? SUIT_OF[c.trump] : null,
    multiplier: level,
    riskTaker,
    doubler,
    locked: Boolean(c.closed),
    coffee: Boolean(c.gahwa),
    ashkal: c.taker != null && c.taker !== c.buyer,
  };
}

function newHandFromPosition(p: Json): Json {
  if ((p.declared ?? []).length || (p.baloot ?? []).length) {
    throw new Skip("the engine has no announcements (it finds and credits projects by itself)");
  }
  const dealer = seatIndex(p.dealer);
  const contract = contractFromPosition(p.contract);
  if ((p.contract.doubling ?? []).length && p.phase === "doubling" && contract.multiplier === 1) {
    throw new BadInput("a doubling position whose raise words and level disagree");
  }
  // Start from a deal of the dealt hands, then set the engine's state fields to the position.
  const deck = deckFromHands({ hands: p.dealt, public: p.public }, dealer);
  state = startMatch(dealer as Json, deck);
  const ms = p.match_scores ?? { NS: 0, EW: 0 };
  state.matchScores = [ms.NS ?? 0, ms.EW ?? 0];
  state.contract = contract;
  state.deck = [];
  state.hands = [0, 1, 2, 3].map((s) => sortHand(p.dealt[SEATS[s]].map(engineCard), contract));
  state.projects = evaluateProjects(state);
  state.hands = [0, 1, 2, 3].map((s) => sortHand(p.hands[SEATS[s]].map(engineCard), contract));
  const turn = seatIndex(p.turn);
  if (p.phase === "doubling") {
    const bidderTeam = buyerTeam(contract);
    const eligibleOpponents = [1, 2, 3, 0].map((k) => (dealer + k) % 4).filter((s) => s % 2 !== bidderTeam);
    const passed = contract.multiplier === 1 && turn !== eligibleOpponents[0] ? [eligibleOpponents[0]] : [];
    state.doubling = { turn, eligibleOpponents, passedOpponents: passed, history: [] };
    state.phase = "doubling";
    state.currentPlayer = turn;
    return { ok: true };
  }
  state.doubling = { turn, eligibleOpponents: [], passedOpponents: [], history: [] };
  state.phase = "playing";
  state.completedTricks = [];
  state.trickRawPoints = [0, 0];
  state.tricksWon = [0, 0];
  for (const t of p.tricks ?? []) {
    const trick: Json = {
      leadSeat: seatIndex(t.leader),
      plays: t.plays.map((pl: Json) => ({ seat: seatIndex(pl.seat), card: engineCard(pl.card) })),
      winner: seatIndex(t.winner),
      points: 0,
    };
    trick.points = trickRawValue(trick, contract);
    state.completedTricks.push(trick);
    state.trickRawPoints[trick.winner % 2] += trick.points;
    state.tricksWon[trick.winner % 2] += 1;
  }
  const cur = p.trick ?? { leader: p.turn, plays: [] };
  state.currentTrick = {
    leadSeat: seatIndex(cur.leader),
    plays: cur.plays.map((pl: Json) => ({ seat: seatIndex(pl.seat), card: engineCard(pl.card) })),
    winner: null,
    points: 0,
  };
  state.currentPlayer = turn;
  return { ok: true };
}

function buyerTeam(contract: Json): number {
  return contract.bidder % 2;
}

// The engine's round-one Hokum carries the face-up suit; a round-two Hokum names it in the bid
// itself, where we name it in a separate `trump` event: see the README ("Not translated").
function engineAction(ev: Json): Json {
  if (ev.type === "bid") {
    const call = ev.call;
    if (call === "hokum") {
      if (state.auction.round !== 1) throw new Skip("a round-two Hokum: the engine names its suit in the bid, we in a later trump event");
      return { type: "bid", call: "hokom", suit: state.faceUpCard.suit };
    }
    if (call === "pass" || call === "sun" || call === "ashkal") return { type: "bid", call };
    throw new Skip(`the engine has no ${call} bid`);
  }
  if (ev.type === "double") {
    const call = DOUBLE_TO_ENGINE[ev.call];
    if (!call) throw new BadInput(`unknown double call ${JSON.stringify(ev.call)}`);
    return ev.closed === undefined ? { type: "double", call } : { type: "double", call, locked: Boolean(ev.closed) };
  }
  if (ev.type === "play") {
    // The engine has no announcements: it credits every project by itself and knows no Ekka.
    if ((ev.declare ?? []).length || ev.ekka || ev.baloot) throw new Skip("the engine has no announcements (declarations, Ekka, Baloot)");
    return { type: "play_card", cardId: engineCard(ev.card).id };
  }
  throw new Skip(`the engine has no ${ev.type} event`);
}

function apply(req: Json): Json {
  if (!state) throw new BadInput("apply before new_hand");
  const results: Json[] = [];
  for (const ev of req.events ?? []) {
    const seat = seatIndex(ev.seat);
    const action = engineAction(ev);
    const wasBidding = state.phase === "bidding";
    try {
      state = applyGameAction(state, seat as Json, action);
    } catch (e: Json) {
      if (e && e.name === "RuleViolation") {
        // The engine gives no rule ids; its message (Arabic) is passed on.
        results.push({ accepted: false, rule: "majlis.refused", message: String(e.message) });
        return { results };
      }
      throw e;
    }
    if (wasBidding && state.phase === "doubling" && givenHands) {
      state.hands = [0, 1, 2, 3].map((s) => sortHand(givenHands[SEATS[s]].map(engineCard), state.contract));
      state.projects = evaluateProjects(state);
    }
    results.push({ accepted: true });
  }
  return { results };
}

const PHASE: Record<string, string> = { bidding: "bidding", doubling: "doubling", playing: "play", round_end: "over", match_end: "over" };

function handOver(): boolean {
  return state.phase === "round_end" || state.phase === "match_end";
}

function turnSeat(): number | null {
  if (handOver()) return null;
  if (state.phase === "bidding") return state.auction.turn;
  if (state.phase === "doubling") return state.doubling.turn;
  return state.currentPlayer;
}

function legal(): Json[] {
  const seat = turnSeat();
  if (seat === null) return [];
  if (state.phase === "bidding") {
    const out: Json[] = [];
    const seen = new Set<string>();
    for (const b of legalBids(state, seat as Json)) {
      if (b.call === "confirm_hokom" || b.call === "confirm_sun") {
        throw new Skip("the engine asks the Hokum bidder to confirm (Hokum or Sun), a step our auction does not have");
      }
      const call = b.call === "hokom" ? "hokum" : b.call;
      if (!seen.has(call)) { seen.add(call); out.push({ type: "bid", call }); }
    }
    return out;
  }
  if (state.phase === "doubling") {
    const out: Json[] = [];
    for (const c of legalDoubleCalls(state, seat as Json)) {
      const call = DOUBLE_FROM_ENGINE[c];
      out.push({ type: "double", call });
      // The engine takes `locked` (closed play) with a Double and a Four; only its Hokum play
      // reads it (legalCards), so in Sun a closed Double is the same action as an open one.
      if ((c === "double" || c === "four") && state.contract.kind === "hokom") out.push({ type: "double", call, closed: true });
    }
    return out;
  }
  return legalCards(state, seat as Json).map((c: Json) => ({ type: "play", card: ourCard(c) }));
}

function query(req: Json): Json {
  if (!state) throw new BadInput("query before new_hand");
  const out: Json = {};
  for (const what of req.what ?? []) {
    if (what === "turn") { const s = turnSeat(); out.turn = s === null ? null : SEATS[s]; }
    else if (what === "phase") out.phase = PHASE[state.phase];
    else if (what === "legal") out.legal = legal();
    else if (what === "result") {
      if (!handOver()) { out.result = null; continue; }
      out.result = handResult();
    }
  }
  return out;
}

function projects(req: Json): Json {
  const setup = req.setup;
  if (setup.declared) throw new Skip("the engine credits every project a hand holds; it has no declarations");
  const dealer = seatIndex(setup.dealer);
  // Any trump suit: scoreRound does not read it (card points are given).
  const contract = contractFromPosition({ mode: setup.mode, trump: setup.trump, buyer: SEATS[(dealer + 1) % 4] });
  const probe: Json = { contract, dealer, hands: [0, 1, 2, 3].map((s) => setup.hands[SEATS[s]].map(engineCard)) };
  const r = evaluateProjects(probe);
  const bySeat: Json = { N: [], E: [], S: [], W: [] };
  let baloot: string | null = null;
  const credited: Json = { NS: 0, EW: 0 };
  for (const p of r.all) {
    if (p.kind === "baloot") continue;
    bySeat[SEATS[p.seat]].push({ name: PROJECT_NAME[p.kind], cards: p.cards.map((id: string) => ourCard(engineCard(idToText(id)))) });
  }
  for (const p of r.counted) {
    if (p.kind === "baloot") { baloot = SEATS[p.seat]; continue; }
    credited[TEAMS[p.team]] += p.gamePoints;
  }
  return { projects: { projects: bySeat, credited_team: r.winningTeam === null ? null : TEAMS[r.winningTeam], credited, baloot } };
}

// The result of a played hand: the engine's roundResult (scoreRound at the last trick).
function handResult(): Json {
  const r = state.roundResult;
  const contract = state.contract;
  const buyer = contract.bidder;
  const risk = contract.riskTaker % 2;
  return {
    thrown_in: false,
    next_dealer: SEATS[(state.dealer + 1) % 4],  // its next_round deals from nextSeat(dealer)
    counting_team: TEAMS[1 - risk],
    converted: { NS: r.cardGamePoints[0], EW: r.cardGamePoints[1] },
    totals: { NS: r.cardGamePoints[0] + r.projectPoints[0], EW: r.cardGamePoints[1] + r.projectPoints[1] },
    winner: TEAMS[r.winningTeam ?? (r.contractMade ? buyer % 2 : 1 - (buyer % 2))],
    kaboot: r.kaboot !== null,
    written: { NS: r.roundPoints[0], EW: r.roundPoints[1] },
    gahwa: Boolean(contract.coffee),
  };
}

// A score: the engine's scoreRound on a state holding the facts (contract, card points, tricks).
function score(req: Json): Json {
  const f = req.facts;
  for (const t of TEAMS) {
    if ((f.projects?.[t] ?? []).length || f.baloot?.[t]) {
      throw new Skip("projects and Baloot reach scoreRound as the engine's own project records, which names alone do not give");
    }
  }
  const words: string[] = f.doubling ?? [];
  const level = words.reduce((l: number, w: string) => (w === "double" ? 2 : w === "triple" ? 3 : w === "four" ? 4 : l), 1);
  // The doubler: the engine's opponent who said Double; which opponent does not change a score.
  const buyer = seatIndex(f.buyer);
  const contract = contractFromPosition({
    mode: f.mode, trump: f.mode === "hokum" ? "S" : null, buyer: f.buyer, taker: f.buyer,
    doubling: words, level, doubler: words.length ? SEATS[(buyer + 1) % 4] : null,
    closed: false, gahwa: words.includes("gahwa"),
  });
  const probe: Json = {
    contract, projects: null,
    trickRawPoints: [f.card_points.NS, f.card_points.EW],
    tricksWon: [f.tricks?.NS ?? 0, f.tricks?.EW ?? 0],
  };
  const r = scoreRound(probe);
  const risk = contract.riskTaker % 2;
  return { score: {
    counting_team: TEAMS[1 - risk],
    converted: { NS: r.cardGamePoints[0], EW: r.cardGamePoints[1] },
    totals: { NS: r.cardGamePoints[0] + r.projectPoints[0], EW: r.cardGamePoints[1] + r.projectPoints[1] },
    // An exact tie leaves the engine's winningTeam null; its contractMade says whose hand it is.
    winner: TEAMS[r.winningTeam ?? (r.contractMade ? buyer % 2 : 1 - (buyer % 2))],
    kaboot: r.kaboot !== null,
    written: { NS: r.roundPoints[0], EW: r.roundPoints[1] },
    gahwa: Boolean(contract.coffee),
  } };
}

function idToText(id: string): string {
  const [suit, rank] = id.split("-");
  return RANK_LETTER[rank] + SUIT_LETTER[suit];
}

const FEATURES = [
  "deal.order", "bidding.first-pass", "bidding.sun-over-hokum", "bidding.ashkal",
  "doubling.hokum", "doubling.sun", "doubling.closed",
  "play.turn", "play.follow-suit", "play.trick-winner", "play.overtrump",
  "play.trump-when-opponent-winning", "play.partner-winning", "play.closed",
  "projects.sequence", "projects.four-of-a-kind", "projects.split", "projects.compare", "projects.baloot",
  "scoring.counting-team", "scoring.conversion", "scoring.tie", "scoring.write", "scoring.doubled",
  "scoring.kaboot", "scoring.gahwa",
];

function hello(): Json {
  return {
    protocol: "baloot-protocol/1",
    engine: { name: "majlis-baloot", version: process.env.MAJLIS_COMMIT ?? "4bb936fd20b720d0bf1127af2bd2aaef57a7aeb5",
              url: "https://github.com/Motl1234/majlis-baloot" },
    // The engine has no variants. It is closest to our saudi-federation preset (README), but the
    // corpus writes nearly every case under `default`, so `default` is claimed to ask every
    // question; the differences come out as failures and are classified in the README.
    // MAJLIS_PRESETS=saudi-federation,... claims other presets instead.
    presets: (process.env.MAJLIS_PRESETS ?? "default").split(","),
    knobs: {},
    features: FEATURES,
    commands: ["new_hand", "apply", "query", "projects", "score"],
    // No rule ids: a refusal cannot be compared.
    produces: { reject: [] },
    setups: ["events", "position"],
  };
}

function answer(req: Json): Json {
  switch (req.cmd) {
    case "hello": return hello();
    case "new_hand": return newHand(req);
    case "apply": return apply(req);
    case "query": return query(req);
    case "projects": return projects(req);
    case "score": return score(req);
    case "stop": return { ok: true };
    default: throw new Skip(`command ${req.cmd} is not implemented`);
  }
}

const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line: string) => {
  if (!line.trim()) return;
  let req: Json;
  try { req = JSON.parse(line); } catch { process.stderr.write("unreadable request line\n"); return; }
  let resp: Json;
  try { resp = { seq: req.seq, ...answer(req) }; }
  catch (e: Json) {
    if (e instanceof Skip) resp = { seq: req.seq, skipped: e.message };
    else resp = { seq: req.seq, errored: String(e && e.stack ? e.stack : e) };
  }
  process.stdout.write(JSON.stringify(resp) + "\n");
  if (req.cmd === "stop") process.exit(0);
});
rl.on("close", () => process.exit(0));
