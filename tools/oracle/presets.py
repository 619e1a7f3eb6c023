"""The oracle's own reading of the presets: knob -> value, each from its source.

Knobs not listed keep the `de` default (oracle.DEFAULTS). Written from shared/rulebooks only.
"""

PRESETS = {
    "default": {},

    "nl-rulebook": {
        # nl Instelling: "De speler links van de dealer kan ofwel "go" zeggen zonder de kaarten te
        # snijden, ze schudden (slechts één keer), de eerste kaart als publieke kaart nemen, de
        # onderste drie kaarten aan een medespeler geven of ze voor zichzelf houden of de bovenste
        # drie kaarten voor zichzelf nemen."
        "cutting": "nl",
        # nl Instelling: "heeft de speler niet het recht deze te weigeren, tenzij het een aas is,
        # in welk geval de schudbeurt opnieuw begint met dezelfde dealer"
        "exposed_card": "ace_redeals",
        # nl Scoren, Sun: "Ronde score = score (tot de dichtstbijzijnde 10) dan delen over 10 dan x 2"
        "sun_conversion": "half_up",
        # nl Scoren, Hokom: "Ronde score = score (naar dichtstbijzijnde 10) dan delen door 10"
        "hokum_rounding": "half_up",
        # nl Opmerkingen: "In Dubbel, Drie en Vier worden Projecten X2, X3, X4 ... berekend"
        "project_multiplier": "level",
        # nl Opmerkingen: "400 > 100 (serie) > 100 (4 of a kind) > 50 > Sira"
        "hundred_rank": "sequence_first",
        # nl Bieden: "Als de kaart een aas was, heeft de speler niet het recht om Ashkal te roepen"
        "ashkal_on_ace": "refused",
        # nl Bieden: "Als een speler Ashkal roept waar hij dat recht niet heeft, is de speler
        # verplicht de publieke kaart als Zon te nemen" (also for the Ace)
        "wrongful_ashkal": "forced_sun",
        # nl Bieden: "Er is geen 'Ashkal' in de tweede ronde" (= default false, stated for clarity)
        "ashkal_round_two": False,
        # nl Bieden: Kawesh/Saneen is a rule ("kan hij ervoor kiezen ..."), not in "Tweede"
        "kawesh": True,
        # nl Meervoudige scores: "Anders kunt u 'als het Drie of Gahwa is' elke kleur gebruiken"
        "closed_after_buyer_raise": "open",
        # nl Meervoudige scores: "alleen als slechts 1 team meer dan 100 punten heeft"
        "sun_double_allowed": "nl",
        # nl Spelregels: "De speler rechts van de Dealer begint de ronde" (= default)
        "first_lead": "dealer_right",
        # nl Bieden: "Of het is Zon als de speler de twee kaarten optilt voordat hij een kleur
        # voor Hokom noemt."
        "pickup_before_trump": "sun",
        # nl Opmerkingen: "Als een speler een hoger project heeft dan de speler voor hem, maar
        # vergeet het te laten zien, heeft de andere speler het recht zijn project te laten zien
        # voordat hij zijn derde kaart speelt."
        "late_projects": "until_third_card",
        # nl Opmerkingen: "Als één (niet allebei) van de Baloot-kaarten in een ander project zit, kan
        # de Baloot niet worden gedeclareerd. en als beide Baloot-kaarten in een "100"-project
        # zitten, kan de Baloot niet worden gedeclareerd." -- in a project of the hand, shown or not
        "baloot_cancelled_when": "held",
        # nl Spelregels: "een speler die geen kaarten van de geleide kleur heeft, mag een
        # willekeurige kaart spelen. Of hij/zij moet een van de Juryleden kaarten spelen in het
        # geval van Hokom rondes." -- void in Hokum: a trump, whoever is ahead, beatable or not
        "trump_when_partner_winning": "always",
        "undertrump": "forced",
        # nl Spelregels: "In het geval van Hokom, als de eerste leidende kaart Hokom speelde, moeten
        # de andere spelers de Hokom kaart gooien, ... moet de volgende speler een kaart geven die
        # groter is in waarde van de Koning." -- no exception when the partner is ahead
        "overtrump_partner_winning": "forced",
        # nl Scoren: "Zodra een ronde voorbij is, moet de score van elk team worden opgeteld bij de
        # totale score" with "Ronde score = score (naar dichtstbijzijnde 10) dan delen door 10":
        # each team's own points, each rounded on its own (no "rest of 16")
        "other_team_points": "own",
        # nl Meerdere scores: "want als het spel wordt verdubbeld (of meer) worden de punten niet
        # verdeeld, het team met de meeste punten krijgt alles" -- so a hand not doubled is split
        "undoubled_loss": "split",
    },

    "saudi-federation": {
        # smsf 4-11: Sun "÷ 10 with 5 and more rounding up, then × 2" (Hokum 1-5 drops = default)
        "sun_conversion": "half_up",
        # smsf 4-2..4-9: the buyer loses when the opponents' raw total is greater
        "winner_basis": "raw_points",
        # smsf 4-10: after Double the doubler's team is treated as the buyer, then the last decider
        "counting_team": "smsf",
        # smsf 7-6: a doubled tie is lost by whoever made the last decision
        "tie_rule": "last_raiser_loses",
        # smsf 5-4, 5-5: projects x2 at Double, face value at Triple / Four
        "project_multiplier": "double_only",
        # smsf 5-2: a 100 in sequence beats a 100 of four of a kind
        "hundred_rank": "sequence_first",
        # smsf 5-7: equal projects: priority to the player nearest the dealer's right
        "project_tie": "nearest_dealer_right",
        # smsf 7-7: Al-Kaboot 25 / 44 plus projects "even when doubled"
        "kaboot_doubled": "flat",
        # smsf counting: "a Baloot stays with the team that holds it"
        "baloot_of_losers": "holder",
        # smsf 7-2: doubling team at most 100, the other (buyers) over 100
        "sun_double_allowed": "smsf",
        # smsf 7-5: "Triple is the buyer's and open ... Gahwa is the buyer's and open"
        "closed_after_buyer_raise": "open",
        # smsf 8-1: "Ashkal is not allowed if no one has bought Hokum (it answers a Hokum)"
        "ashkal_requires": "hokum_bid",
        # smsf Bidding and Ashkal: "In Ashkal the caller is the buyer"
        "ashkal_buyer": "caller",
        # smsf 4-1: with an Ace face up only the dealer's right turns a Hokum into Sun
        "ace_sun_overcall": "dealer_right",
        # smsf Play: "If your partner is winning the trick you are not forced to trump"
        "partner_led_exception": False,
        # smsf Play: "Under-trumping is not forced" (= default)
        "undertrump": "free",
        # smsf 5-3: hundreds of four of a kind in Hokum rank Aces first (= default: four Aces 100)
        "four_aces_hokum": "hundred",
        # smsf 5-6: "inside a shown sequence it counts even if not announced"; 5-8: "no Baloot when
        # a hundred of Kings or of Queens is shown" -- a 100 sequence does not cancel it
        "baloot_in_hundred": "counts",
        # smsf 8-2: "no Ashkal in round two for a player who passed ("wala")" -- "wala" is the
        # round-two pass: a player who has not passed in round two may answer a Hokum with Ashkal
        "ashkal_round_two": True,
    },

    # de Varianten: "in Riad, dürfen der dritte Spieler und der Geber auch in der zweiten Runde
    # Ashkal sagen"
    "riyadh": {"ashkal_round_two": True},

    # de Varianten: "In manchen Online-Versionen spielt der Spielmacher zum ersten Stich aus"
    "online-apps": {"first_lead": "buyer"},
}
