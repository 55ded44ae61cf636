"""The engine from Python: rules, states, observations, encodings, records."""

import copy
import json
import pickle
import subprocess

import numpy as np
import pytest

import lcfr


def test_rules_every_key_and_errors():
    rules = lcfr.Rules()
    assert rules.as_dict() == {
        "colors": 5, "ranks": 9, "min_rank": 2, "wagers": 3, "hand_size": 8,
        "expedition_cost": 20, "bonus_threshold": 8, "bonus": 20, "max_decisions": 1000,
    }
    assert lcfr.Rules.keys() == list(rules.as_dict())
    six = lcfr.Rules(colors=6)
    assert six.colors == 6 and six.deck_size == 72 and six.num_actions == 23
    assert six.replace(hand_size=7).hand_size == 7 and six.hand_size == 8
    with pytest.raises(ValueError, match=r"unknown rules key 'colours' \(known keys: colors"):
        lcfr.Rules(colours=6)
    with pytest.raises(ValueError, match=r"rules.colors = 7 is out of range \[1, 6\]"):
        lcfr.Rules(colors=7)
    with pytest.raises(TypeError, match="rules: colors: an integer"):
        lcfr.Rules(colors="6")


def test_deal_is_the_engines_and_copies_are_independent():
    a = lcfr.deal(seed=7)
    b = lcfr.deal(seed=7)
    assert a.hand(0) == b.hand(0) and a.hand(1) == b.hand(1)
    assert a.hand(0) != lcfr.deal(seed=8).hand(0)
    assert len(a.hand(0)) == 8 and a.deck_size == 44 and a.current_player == 0
    c = a.copy()
    c.apply(c.legal_actions()[0])
    assert a.decisions == 0 and c.decisions == 1
    d = copy.deepcopy(c)
    assert d.history == c.history
    e = pickle.loads(pickle.dumps(c))
    assert e.history == c.history and e.record().deck == c.record().deck
    np.testing.assert_array_equal(e.encode(), c.encode())
    e.undo()
    assert e.decisions == 0
    assert pickle.loads(pickle.dumps(c.game)).rules == c.game.rules


def test_apply_undo_and_illegal_actions():
    s = lcfr.deal(seed=3)
    before = s.encode().copy()
    legal = s.legal_actions()
    assert legal == [a for a in range(s.game.num_actions) if s.legal_mask() >> a & 1]
    illegal = next(a for a in range(s.game.num_actions) if a not in legal)
    with pytest.raises(ValueError, match="not legal|cannot|illegal|draw"):
        s.apply(illegal)
    s.apply(legal[0])
    assert s.phase == "draw"
    s.undo()
    np.testing.assert_array_equal(s.encode(), before)
    assert s.history == [] and s.phase == "card"
    with pytest.raises(IndexError, match="no action to undo"):
        s.undo()


def test_a_whole_game_ends_and_scores():
    s = lcfr.deal(seed=11)
    bot = lcfr.Bot("heuristic-balanced", seed=1)
    while not s.is_terminal:
        s.apply(bot.act(s))
    assert s.end_reason == "deck_empty"
    assert s.legal_actions() == []
    assert s.payoff(0) == s.scores[0] - s.scores[1] == -s.payoff(1)
    with pytest.raises(ValueError, match="the game is over"):
        s.observation()


def test_observation_is_the_protocols_and_round_trips():
    s = lcfr.deal(seed=5)
    obs = s.observation()
    assert obs["decision"] == "card" and obs["deck_size"] == 44
    assert obs["hand"] == s.hand(0)
    for action in s.legal_actions():
        wire = s.action_to_protocol(action)
        assert s.action_from_protocol(wire) == action
        assert s.action_from_protocol(json.dumps(wire)) == action
    card = s.hand(0)[0]
    s.apply(s.action_from_protocol({"discard": card}))
    assert s.observation()["decision"] == "draw"
    assert s.observation()["moves"] == [{"by": "me", "discard": card}]
    # The other seat's view, with the moves as it saw them.
    theirs = s.observation(player=1)
    assert theirs["hand"] == s.hand(1)
    assert theirs["moves"] == [{"by": "opponent", "discard": card}]
    with pytest.raises(ValueError, match="play: bad card 'Z9': color letter must be one of YBWGR"):
        s.action_from_protocol({"play": "Z9"})


def test_encode_writes_into_the_callers_array():
    s = lcfr.deal(seed=2)
    out = np.zeros(s.game.encoding_size, np.float32)
    got = s.encode(out=out)
    assert np.shares_memory(got, out)
    assert s.game.encoding_size == 618
    # The legal mask closes the encoding (engine/lost_cities.h).
    np.testing.assert_array_equal(out[-s.game.num_actions:] > 0,
                                  [bool(s.legal_mask() >> a & 1) for a in range(s.game.num_actions)])
    with pytest.raises(ValueError, match="out has 3 entries; this game needs 618"):
        s.encode(out=np.zeros(3, np.float32))


def test_six_colours():
    s = lcfr.deal(lcfr.Rules(colors=6), seed=1)
    assert s.deck_size == 72 - 16 and s.game.num_actions == 23
    assert any(card.startswith("P") for card in s.game.cards())


def test_records_save_load_replay(tmp_path, lcfr_bin):
    s = lcfr.deal(seed=9)
    bot = lcfr.Bot("heuristic-cautious")
    for _ in range(30):
        s.apply(bot.act(s))
    record = s.record()
    path = tmp_path / "game.json"
    record.save(str(path))
    loaded = lcfr.GameRecord.load(str(path))
    assert loaded.actions == s.history and loaded.deck == record.deck
    assert loaded.state().encode().tolist() == s.encode().tolist()
    log = loaded.replay()
    assert len(log) == 31 and log[0]["step"] == 0
    # The same log as `lcfr replay`.
    cli = subprocess.run([lcfr_bin, "replay", str(path)], capture_output=True, text=True, check=True)
    assert [json.loads(line) for line in cli.stdout.splitlines() if line.strip()] == log
    with pytest.raises(ValueError, match=r"deck"):
        lcfr.GameRecord.loads('{"deck": ["R7"], "actions": []}')
    with pytest.raises(FileNotFoundError):
        lcfr.GameRecord.load(str(tmp_path / "missing.json"))
