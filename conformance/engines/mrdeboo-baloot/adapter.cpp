// baloot-protocol/1 adapter for MrDeboo/Baloot (C++23, src/core).
//
// Translation only. The engine's Baloot rules are free functions of its core library, called
// here per request: legal_cards / validate_play_or_throw / winning_play_index (scoring.cpp) for
// play positions, find_projects / winning_projects (project.cpp) for projects,
// score_completed_game (scoring.cpp) for scores. Its bidding and doubling live inside its host
// game loop (host.cpp, driven by bots over sockets), which cannot be given a deal: the adapter
// takes hands only as positions (hello "setups": ["position"]) and does not claim the auction.
// JSON: nlohmann/json (Debian package nlohmann-json3-dev). Built by build.sh.
#include "core/gaid.hpp"
#include "core/project.hpp"
#include "core/scoring.hpp"

#include <nlohmann/json.hpp>

#include <array>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

using json = nlohmann::json;
using namespace baloot;

namespace {

#ifndef MRDEBOO_COMMIT
#define MRDEBOO_COMMIT "unknown"
#endif

// Player ids are seat indices in play order: the engine's seats advance by one per turn
// (host.cpp), ours go N -> W -> S -> E, so 0=N 1=W 2=S 3=E; teams: a = N,S (NS), b = W,E (EW).
const std::array<std::string, 4> SEATS{"N", "W", "S", "E"};

struct skip : std::runtime_error {
  using std::runtime_error::runtime_error;
};
struct bad_input : std::runtime_error {
  using std::runtime_error::runtime_error;
};

int seat_id(const json& value) {
  if (!value.is_string()) throw bad_input("a seat must be a string");
  for (int i = 0; i < 4; ++i)
    if (SEATS[static_cast<std::size_t>(i)] == value.get<std::string>()) return i;
  throw bad_input("unknown seat " + value.dump());
}

team_id team_of(int id) { return id % 2 == 0 ? team_id::a : team_id::b; }
std::string team_name(team_id t) { return t == team_id::a ? "NS" : "EW"; }

card parse(const json& value) {
  if (!value.is_string()) throw bad_input("a card must be a string");
  auto parsed = parse_card(value.get<std::string>());  // the engine's own parser reads "TS" and "10S"
  if (!parsed) throw bad_input("unreadable card " + value.dump());
  return *parsed;
}

std::string ours(card value) {  // our notation writes the Ten as T
  auto text = to_string(value);
  return text.rfind("10", 0) == 0 ? "T" + text.substr(2) : text;
}

cards parse_cards_json(const json& list) {
  std::vector<card> out;
  for (const auto& item : list) out.push_back(parse(item));
  return cards(out);
}

// ---- a play position ------------------------------------------------------------------------

struct hand_state {
  bool active{};
  game_mode mode{game_mode::sun};
  std::optional<suit> trump;
  bool closed{};
  std::array<cards, 4> hands;
  std::vector<trick_play> trick;  // the current trick
  int leader{};
  int turn{};
  int tricks_done{};
} state;

bool over() { return state.active && state.tricks_done == 8; }

trick_context context_for(int player) {
  trick_context ctx;
  ctx.mode = state.mode;
  ctx.trump = state.trump;
  ctx.closed = state.closed;
  ctx.player_id = player;
  ctx.team_of = team_of;
  ctx.plays = state.trick;
  return ctx;
}

json new_hand(const json& req) {
  state = hand_state{};
  if (!req.contains("position")) {
    throw skip("the engine's auction runs inside its host loop; it takes hands as positions only");
  }
  const auto& p = req["position"];
  if (p.value("phase", "") != "play") {
    throw skip("the engine's doubling runs inside its host loop; it is given play positions only");
  }
  const auto& c = p["contract"];
  state.mode = c.value("mode", "") == "hokum" ? game_mode::hukum : game_mode::sun;
  if (state.mode == game_mode::hukum) {
    auto t = parse_suit(c["trump"].get<std::string>());
    if (!t) throw bad_input("unreadable trump " + c["trump"].dump());
    state.trump = t;
  }
  state.closed = c.value("closed", false);
  for (const auto& [seat, list] : p["hands"].items())
    state.hands[static_cast<std::size_t>(seat_id(seat))] = parse_cards_json(list);
  state.tricks_done = static_cast<int>(p.value("tricks", json::array()).size());
  if (p.contains("trick") && !p["trick"].is_null()) {
    state.leader = seat_id(p["trick"]["leader"]);
    for (const auto& play : p["trick"]["plays"]) {
      state.trick.push_back(trick_play{seat_id(play["seat"]), parse(play["card"]),
                                       play.value("ekka", false), play.value("baloot", false)});
    }
  }
  state.turn = seat_id(p["turn"]);
  if (state.trick.empty()) state.leader = state.turn;
  state.active = true;
  return {{"ok", true}};
}

// One play through validate_play_or_throw; the trick's winner (winning_play_index) leads next.
json play(const json& ev) {
  const int seat = seat_id(ev["seat"]);
  const card value = parse(ev["card"]);
  if (over()) return {{"accepted", false}, {"rule", "mrdeboo.hand-over"}, {"message", "the hand is over"}};
  if (seat != state.turn) {
    return {{"accepted", false}, {"rule", "mrdeboo.out-of-turn"}, {"message", "not this seat's turn"}};
  }
  auto& hand = state.hands[static_cast<std::size_t>(seat)];
  try {
    validate_play_or_throw(hand, value, context_for(seat));
  } catch (const gaid& refused) {
    // The engine names the fault (INVALID_CUT, DIDNT_KNOCK, ...) but not with our rule ids.
    return {{"accepted", false}, {"rule", "mrdeboo." + refused.type()}, {"message", refused.what()}};
  }
  hand.remove(value);
  state.trick.push_back(trick_play{seat, value, ev.value("ekka", false), ev.value("baloot", false)});
  if (state.trick.size() < 4) {
    state.turn = (seat + 1) % 4;
  } else {
    const int winner = state.trick[static_cast<std::size_t>(
        winning_play_index(state.trick, state.mode, state.trump))].actor_id;
    state.trick.clear();
    state.tricks_done += 1;
    state.turn = winner;
    state.leader = winner;
  }
  return {{"accepted", true}};
}

json apply(const json& req) {
  if (!state.active) throw bad_input("apply before new_hand");
  json results = json::array();
  for (const auto& ev : req.value("events", json::array())) {
    const auto type = ev.value("type", "");
    if (type != "play") throw skip("the engine's " + type + " happens inside its host loop");
    if (ev.contains("declare") || ev.value("baloot", false))
      throw skip("declarations are not translated: the engine finds projects by itself");
    auto result = play(ev);
    results.push_back(result);
    if (!result["accepted"].get<bool>()) break;
  }
  return {{"results", results}};
}

json query(const json& req) {
  if (!state.active) throw bad_input("query before new_hand");
  json out = json::object();
  for (const auto& what : req.value("what", json::array())) {
    const auto item = what.get<std::string>();
    if (item == "turn") {
      out["turn"] = over() ? json(nullptr) : json(SEATS[static_cast<std::size_t>(state.turn)]);
    } else if (item == "phase") {
      out["phase"] = over() ? "over" : "play";
    } else if (item == "legal") {
      json legal = json::array();
      if (!over()) {
        // Kept in a variable: a range-for over a temporary's values() would dangle.
        const auto allowed = legal_cards(state.hands[static_cast<std::size_t>(state.turn)],
                                         context_for(state.turn));
        for (auto value : allowed.values()) legal.push_back({{"type", "play"}, {"card", ours(value)}});
      }
      out["legal"] = legal;
    } else if (item == "result") {
      if (!over()) {
        out["result"] = nullptr;
      } else {
        throw skip("the hand result is made inside the engine's host loop");
      }
    }
  }
  return out;
}

// ---- projects and scores --------------------------------------------------------------------

std::string project_name(project_kind kind) {
  switch (kind) {
    case project_kind::sira: return "sira";
    case project_kind::fifty: return "50";
    case project_kind::hundred: return "100";
    case project_kind::four_hundred: return "400";
  }
  return "?";
}

json projects(const json& req) {
  const auto& setup = req["setup"];
  if (setup.contains("declared")) throw skip("the engine finds every project a hand holds; declarations are not translated");
  const game_mode mode = setup.value("mode", "") == "hokum" ? game_mode::hukum : game_mode::sun;
  const int dealer = seat_id(setup["dealer"]);
  std::vector<int> turn_order;  // the first trick's order, from the dealer's right
  for (int k = 1; k <= 4; ++k) turn_order.push_back((dealer + k) % 4);
  json by_seat = json::object();
  std::vector<project> declared;
  for (int id : turn_order) {
    const auto seat = SEATS[static_cast<std::size_t>(id)];
    by_seat[seat] = json::array();
    const auto hand = parse_cards_json(setup["hands"][seat]);
    for (const auto& item : find_projects(id, hand, mode)) {
      json listed = json::array();
      for (auto value : item.project_cards.values()) listed.push_back(ours(value));
      by_seat[seat].push_back({{"name", project_name(item.kind)}, {"cards", listed}});
      declared.push_back(item);
    }
  }
  const auto credited = winning_projects(declared, turn_order, team_of);
  json points = {{"NS", 0}, {"EW", 0}};
  for (const auto& item : credited) points[team_name(team_of(item.owner_id))] = points[team_name(team_of(item.owner_id))].get<int>() + item.score;
  json team = credited.empty() ? json(nullptr) : json(team_name(team_of(credited.front().owner_id)));
  return {{"projects", {{"projects", by_seat}, {"credited_team", team}, {"credited", points}}}};
}

json score(const json& req) {
  const auto& f = req["facts"];
  for (const auto& t : {"NS", "EW"}) {
    if (!f["projects"][t].empty() || f["baloot"].value(t, false))
      throw skip("project and Baloot points are passed to the engine as game points it does not compute from names");
  }
  contract value;
  value.mode = f.value("mode", "") == "hokum" ? game_mode::hukum : game_mode::sun;
  value.buyer_id = seat_id(f["buyer"]);
  value.buyer_team = team_of(value.buyer_id);
  for (const auto& word : f.value("doubling", json::array())) {
    const auto w = word.get<std::string>();
    if (w == "double") value.multiplier = 2;
    else if (w == "triple") value.multiplier = 3;
    else if (w == "four") value.multiplier = 4;
    else if (w == "gahwa") value.gahwa = true;
    else throw bad_input("unknown raise word " + word.dump());
  }
  const auto result = score_completed_game(value, f["card_points"]["NS"].get<int>(),
                                           f["card_points"]["EW"].get<int>(), 0, 0, rules_config{});
  return {{"score", {{"written", {{"NS", result.team_a_points}, {"EW", result.team_b_points}}},
                     {"winner", team_name(result.winner)}}}};
}

json hello() {
  return {
      {"protocol", "baloot-protocol/1"},
      {"engine", {{"name", "mrdeboo-baloot"}, {"version", MRDEBOO_COMMIT}, {"url", "https://github.com/MrDeboo/Baloot"}}},
      {"presets", {"default"}},
      {"knobs", json::object()},
      {"features", {"play.turn", "play.follow-suit", "play.trick-winner", "play.overtrump",
                    "play.trump-when-opponent-winning", "play.partner-winning", "play.closed", "play.ekka",
                    "projects.sequence", "projects.four-of-a-kind", "projects.split", "projects.compare",
                    "scoring.counting-team", "scoring.conversion", "scoring.tie", "scoring.write",
                    "scoring.doubled", "scoring.kaboot"}},
      {"commands", {"new_hand", "apply", "query", "projects", "score"}},
      // No rule ids of ours (reject), no hand result, no Baloot in find_projects, a score's
      // written points and winner only.
      {"produces", {{"reject", json::array()}, {"hand", json::array()},
                    {"projects", {"projects", "credited_team", "credited"}},
                    {"score", {"written", "winner"}}}},
      {"setups", {"position"}},
  };
}

json answer(const json& req) {
  const auto cmd = req.value("cmd", "");
  if (cmd == "hello") return hello();
  if (cmd == "new_hand") return new_hand(req);
  if (cmd == "apply") return apply(req);
  if (cmd == "query") return query(req);
  if (cmd == "projects") return projects(req);
  if (cmd == "score") return score(req);
  if (cmd == "stop") return {{"ok", true}};
  throw skip("command " + cmd + " is not implemented");
}

}  // namespace

int main() {
  std::ios::sync_with_stdio(false);
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    json req;
    try {
      req = json::parse(line);
    } catch (const std::exception&) {
      std::cerr << "unreadable request line\n";
      continue;
    }
    json resp;
    try {
      resp = answer(req);
    } catch (const skip& e) {
      resp = {{"skipped", e.what()}};
    } catch (const std::exception& e) {
      resp = {{"errored", e.what()}};
    }
    resp["seq"] = req.value("seq", 0);
    std::cout << resp.dump() << '\n' << std::flush;
    if (req.value("cmd", "") == "stop") return 0;
  }
  return 0;
}
