"""Lost Cities as an OpenSpiel game, and an lcfr.Agent as an OpenSpiel bot (docs/python.md).

Importing this module registers the game "python_lost_cities" with pyspiel; its parameters are
the rule keys of lcfr.Rules (classic values by default):

        import pyspiel
        import lcfr.openspiel
        game = pyspiel.load_game("python_lost_cities", {"colors": 6})

Chance is explicit and drawn as it comes: the deal is 2 * hand_size chance nodes (one card each,
seat 0 first), and each draw from the deck is a player's action followed by a chance node that
picks the card (uniform over the cards still in the deck, which neither player sees; the
interchangeable wagers of a color are one outcome, weighed by their number). Player
actions are the engine's action ids (engine/move.h: play or discard a hand slot, draw the deck or
a pile); chance outcomes are card ids (color * 16 + index, lcfr.Game.card_name; a wager outcome
is its color's lowest wager id left).

The information-state and observation tensors are the engine's encoding of a player's
information (lcfr.State.encode: what the project's networks read); it summarises the past by
where every card is, not by the order of the moves. The information-state string is perfect
recall: every card the player was dealt or drew, and every public move, in order.
"""

import json

import numpy as np
import pyspiel

import lcfr

_RULE_KEYS = lcfr.Rules.keys()
_DEFAULTS = lcfr.Rules().as_dict()
_MAX_CARDS_PER_COLOR = 16  # card id = color * 16 + index (engine/card.h)

_GAME_TYPE = pyspiel.GameType(
        short_name="python_lost_cities",
        long_name="Lost Cities (lcfr)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(_DEFAULTS),
)


def _utility_bound(rules):
    """The largest score difference the rules allow (both seats' extremes)."""
    values = sum(range(rules.min_rank, rules.min_rank + rules.ranks))
    best = (values - rules.expedition_cost) * (1 + rules.wagers) + rules.bonus
    worst = -rules.expedition_cost * (1 + rules.wagers)
    return rules.colors * (best - worst)


class LostCitiesGame(pyspiel.Game):
    """Lost Cities over the lcfr engine; params: the rule keys (lcfr.Rules)."""

    def __init__(self, params=None):
        params = dict(params or {})
        unknown = sorted(set(params) - set(_RULE_KEYS))
        if unknown:
            raise ValueError(f"python_lost_cities: unknown parameters {unknown} (known: {_RULE_KEYS})")
        self.rules = lcfr.Rules(**{k: int(params.get(k, _DEFAULTS[k])) for k in _RULE_KEYS})
        self.lcfr_game = lcfr.Game(self.rules)
        bound = float(_utility_bound(self.rules))
        info = pyspiel.GameInfo(
                num_distinct_actions=self.rules.num_actions,
                max_chance_outcomes=_MAX_CARDS_PER_COLOR * self.rules.colors,
                num_players=2,
                min_utility=-bound,
                max_utility=bound,
                utility_sum=0.0,
                max_game_length=self.rules.max_decisions + self.rules.deck_size,
        )
        super().__init__(_GAME_TYPE, info, {k: int(getattr(self.rules, k)) for k in _RULE_KEYS})

    def new_initial_state(self):
        return LostCitiesState(self)

    def make_py_observer(self, iig_obs_type=None, params=None):
        return LostCitiesObserver(self, iig_obs_type, params)


class LostCitiesState(pyspiel.State):
    """A game in progress: the deal as it is dealt, then an lcfr.State (lcfr_state)."""

    def __init__(self, game):
        super().__init__(game)
        self._rules = game.rules
        self._game = game.lcfr_game
        self._dealt = []  # card ids of the deal so far, seat 0 first
        self._state = None  # the lcfr.State once both hands are dealt
        self._draw_pending = False  # a deck draw taken, its card not yet drawn
        self._seen = ([], [])  # per seat: what it saw, in order

    @property
    def lcfr_state(self):
        """The engine's state (None while the hands are dealt)."""
        return self._state

    def current_player(self):
        if self._state is None or self._draw_pending:
            return pyspiel.PlayerId.CHANCE
        if self._state.is_terminal:
            return pyspiel.PlayerId.TERMINAL
        return self._state.current_player

    def _legal_actions(self, player):
        return self._state.legal_actions()

    def chance_outcomes(self):
        # One outcome per card name: the wagers of a color are interchangeable, so they are one
        # outcome (its lowest id still there), weighed by how many of them are left.
        if self._state is None:
            dealt = set(self._dealt)
            remaining = [c for c in self._all_cards_ids() if c not in dealt]
        else:
            remaining = self._state.deck_cards()
        counts = {}
        for card in remaining:
            key = card // _MAX_CARDS_PER_COLOR if card % _MAX_CARDS_PER_COLOR < self._rules.wagers else -1 - card
            first, n = counts.get(key, (card, 0))
            counts[key] = (min(first, card), n + 1)
        return sorted((first, n / len(remaining)) for first, n in counts.values())

    def _all_cards_ids(self):
        r = self._rules
        return [c * _MAX_CARDS_PER_COLOR + i for c in range(r.colors) for i in range(r.ranks + r.wagers)]

    def _apply_action(self, action):
        name = self._game.card_name(action) if self.is_chance_node() else None
        if self._state is None:
            seat = len(self._dealt) % 2
            self._dealt.append(action)
            self._seen[seat].append(f"dealt {name}")
            if len(self._dealt) == 2 * self._rules.hand_size:
                self._state = self._deal()
        elif self._draw_pending:
            mover = self._state.current_player
            self._state.stack_deck(action)
            self._state.apply(2 * self._rules.hand_size)
            self._draw_pending = False
            self._seen[mover].append(f"drew {name}")
            self._seen[1 - mover].append(f"p{mover} drew from the deck")
        elif action == 2 * self._rules.hand_size:
            if action not in self._state.legal_actions():
                raise ValueError(f"action {action} is not legal")
            self._draw_pending = True
        else:
            mover = self._state.current_player
            move = self._state.action_name(action)
            self._state.apply(action)
            for seat in (0, 1):
                self._seen[seat].append(f"p{mover} {move}")

    def _deal(self):
        # The engine deals hands one card at a time from the top of the deck, seat 0 first: deck
        # position n - 1 - k holds the k-th card dealt. The rest of the deck is ordered later, one
        # chance node per draw (lcfr.State.stack_deck).
        n = self._rules.deck_size
        dealt = set(self._dealt)
        deck = [c for c in self._all_cards_ids() if c not in dealt]
        deck += list(reversed(self._dealt))
        assert len(deck) == n
        return lcfr.deal(self._rules, deck=[self._game.card_name(c) for c in deck])

    def _action_to_string(self, player, action):
        if player == pyspiel.PlayerId.CHANCE:
            return f"card {self._game.card_name(action)}"
        if self._state is not None and not self._state.is_terminal and action in self._state.legal_actions():
            name = self._state.action_name(action)
            # Two wagers of a color in a hand are two actions with one name: the slot tells them apart.
            return f"{name} (slot {action // 2})" if action < 2 * self._rules.hand_size else name
        return f"action {action}"

    def is_terminal(self):
        return self._state is not None and not self._draw_pending and self._state.is_terminal

    def returns(self):
        if not self.is_terminal():
            return [0.0, 0.0]
        return [float(self._state.payoff(0)), float(self._state.payoff(1))]

    def information_state_string_for(self, player):
        return f"p{player}: " + "; ".join(self._seen[player])

    def __str__(self):
        if self._state is None:
            return "dealing: " + " ".join(self._game.card_name(c) for c in self._dealt)
        s = self._state
        text = f"scores {s.scores[0]} {s.scores[1]}, deck {s.deck_size}, hands "
        text += " / ".join(" ".join(s.hand(p)) for p in (0, 1))
        return text + (", drawing" if self._draw_pending else "")


class LostCitiesObserver:
    """OpenSpiel's observer (open_spiel/python/observation.py's interface)."""

    def __init__(self, game, iig_obs_type, params):
        if params:
            raise ValueError(f"python_lost_cities: observation parameters are not supported: {params}")
        self._game = game.lcfr_game
        self._rules = game.rules
        self._perfect_recall = bool(iig_obs_type.perfect_recall) if iig_obs_type else False
        self.tensor = np.zeros(self._game.encoding_size, np.float32)
        self.dict = {"encoding": self.tensor}

    def set_from(self, state, player):
        if state.lcfr_state is not None:
            state.lcfr_state.encode(out=self.tensor, player=player)
            return
        # While dealing: the cards dealt to `player` so far, in the encoding's "in my hand" plane
        # (wagers of a color set its first wager indices, as the encoder does).
        self.tensor.fill(0)
        k = self._rules.ranks + self._rules.wagers
        wagers = [0] * self._rules.colors
        for card in state._dealt[player::2]:
            color, index = divmod(card, _MAX_CARDS_PER_COLOR)
            if index < self._rules.wagers:
                index = wagers[color]
                wagers[color] += 1
            self.tensor[color * k + index] = 1.0

    def string_from(self, state, player):
        if self._perfect_recall:
            return state.information_state_string_for(player)
        s = state.lcfr_state
        if s is None:
            return f"p{player} dealt: " + " ".join(self._game.card_name(c) for c in state._dealt[player::2])
        if s.is_terminal:
            return f"p{player} game over: scores {s.scores[0]} {s.scores[1]}"
        return f"p{player} " + json.dumps(s.observation(moves=False, player=player), sort_keys=True)


class AgentBot(pyspiel.Bot):
    """An lcfr.Agent (or lcfr.Bot) playing python_lost_cities in OpenSpiel's loops."""

    def __init__(self, player):
        pyspiel.Bot.__init__(self)
        self._player = player

    def step(self, state):
        if not isinstance(state, LostCitiesState):
            raise TypeError(f"AgentBot plays python_lost_cities states, not {type(state).__name__}")
        return self._player.act(state.lcfr_state)

    def restart_at(self, state):
        pass

    def inform_action(self, state, player_id, action):
        pass


pyspiel.register_game(_GAME_TYPE, LostCitiesGame)
