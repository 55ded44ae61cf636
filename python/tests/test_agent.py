"""The players: scripted bots, the trained agent, and matches that agree with the CLI's."""

import json
import subprocess

import numpy as np
import pytest

import lcfr


def states(n, seed=0):
    # Positions from games of two bots, a few decisions in.
    out = []
    bots = [lcfr.Bot("heuristic-balanced", seed=seed), lcfr.Bot("random", seed=seed)]
    for g in range(n):
        s = lcfr.deal(seed=seed * 1000 + g)
        for _ in range(g % 25):
            s.apply(bots[s.current_player].act(s))
        out.append(s)
    return out


def test_bots():
    assert "heuristic-cautious" in lcfr.bots()
    s = lcfr.deal(seed=1)
    bot = lcfr.Bot("heuristic-cautious")
    assert bot.act(s) in s.legal_actions()
    assert bot.probability(s, bot.act(s)) == 1.0
    with pytest.raises(ValueError, match="unknown bot 'nobody'"):
        lcfr.Bot("nobody")


def test_the_shipped_agent(shipped_model):
    agent = lcfr.Agent()
    assert agent.policy == "current" and not agent.searching and agent.device == "cpu"
    s = lcfr.deal(seed=4)
    p = agent.probabilities(s)
    legal = s.legal_actions()
    assert p.shape == (s.game.num_actions,) and abs(p[legal].sum() - 1) < 1e-5
    assert not p[[a for a in range(len(p)) if a not in legal]].any()
    assert agent.act(s) in legal
    greedy = lcfr.Agent(shipped_model, greedy=True)
    assert greedy.policy == "current-greedy"
    assert greedy.act(s) == int(np.argmax(np.where([a in legal for a in range(len(p))], p, -1)))
    assert lcfr.Agent(shipped_model, policy="average").policy == "average"


def test_a_batch_is_one_decision_after_another(shipped_model):
    # Each row draws from the agent's own stream, in order (sampled play; greedy play's ties).
    batch = states(40)
    for greedy in (True, False):
        a = lcfr.Agent(shipped_model, greedy=greedy, seed=3).act_batch(batch)
        b = lcfr.Agent(shipped_model, greedy=greedy, seed=3)
        np.testing.assert_array_equal(a, [b.act(s) for s in batch])


def test_agent_errors(tmp_path, shipped_model):
    with pytest.raises(FileNotFoundError, match="missing.pt"):
        lcfr.Agent(str(tmp_path / "missing.pt"))
    with pytest.raises(ValueError, match="policy: 'best' is not current or average"):
        lcfr.Agent(shipped_model, policy="best")
    with pytest.raises(ValueError, match="device"):
        lcfr.Agent(shipped_model, device="tpu")
    with pytest.raises(ValueError, match="a model or a checkpoint, not both"):
        lcfr.Agent(shipped_model, checkpoint=str(tmp_path))
    agent = lcfr.Agent(shipped_model)
    with pytest.raises(ValueError, match=r"are not the agent's .*rules it was trained on"):
        agent.act(lcfr.deal(lcfr.Rules(colors=6), seed=1))
    over = lcfr.deal(seed=1)
    while not over.is_terminal:
        over.apply(over.legal_actions()[-1])
    with pytest.raises(ValueError, match="the game is over"):
        agent.act(over)


def test_the_shipped_model_of_the_rules(shipped_model):
    # Agent(rules=) serves the shipped model whose card plays them, or says none does; a model
    # given with other rules is refused, naming both.
    assert lcfr.Agent(rules=lcfr.Rules()).rules == lcfr.Rules()
    with pytest.raises(ValueError, match=r"no shipped model plays the rules \(colors=4 .*lost-cities.pt \(colors=5"):
        lcfr.Agent(rules=lcfr.Rules(colors=4))
    with pytest.raises(ValueError, match=r"the rules \(colors=6 .*are not the player's \(colors=5"):
        lcfr.Agent(shipped_model, rules=lcfr.Rules(colors=6))
    # The shipped six-colour model plays six-colour deals, and only those.
    six = lcfr.Agent(rules=lcfr.Rules(colors=6))
    assert six.rules == lcfr.Rules(colors=6)
    s = lcfr.deal(lcfr.Rules(colors=6), seed=4)
    assert six.act(s) in s.legal_actions()
    with pytest.raises(ValueError, match=r"are not the agent's"):
        six.act(lcfr.deal(seed=4))


def test_search_agent_acts(shipped_model):
    agent = lcfr.Agent(shipped_model, search=True, rollouts=64)
    assert agent.searching
    s = lcfr.deal(seed=2)
    assert agent.act(s) in s.legal_actions()


def test_match_agrees_with_lcfr_match(lcfr_bin):
    got = lcfr.match("heuristic-balanced", "random", games=40, seed=3)
    cli = json.loads(subprocess.run(
        [lcfr_bin, "match", "heuristic-balanced", "random", "--games", "40", "--seed", "3", "--json"],
        capture_output=True, text=True, check=True).stdout)
    for key in ("games", "wins", "losses", "ties", "win_rate", "ci_low", "ci_high",
                "mean_score_diff", "mean_score_a", "mean_score_b", "mean_decisions", "capped"):
        assert got[key] == pytest.approx(cli[key]), key


def test_match_agrees_with_lcfr_eval_game_for_game(tmp_path, lcfr_bin, shipped_model):
    agent = lcfr.Agent(shipped_model)
    got = lcfr.match(agent, "heuristic-cautious", games=30, seed=5)
    games_csv = tmp_path / "games.csv"
    cli = json.loads(subprocess.run(
        [lcfr_bin, "eval", "--model", shipped_model, "--opponent", "heuristic-cautious",
         "--games", "30", "--seed", "5", "--json", "--games-out", str(games_csv)],
        capture_output=True, text=True, check=True).stdout)
    assert got["win_rate"] == pytest.approx(cli["win_rate"])
    assert got["mean_score_diff"] == pytest.approx(cli["mean_score_diff"])
    rows = games_csv.read_text().splitlines()
    header = rows[0].split(",")
    cli_games = [dict(zip(header, r.split(","))) for r in rows[1:]]
    assert [(int(g["score"]), int(g["opponent_score"])) for g in cli_games] == \
        [(a, b) for a, b, _, _ in got["per_game"]]
    # The agent in seat b plays the same deals one after another.
    flipped = lcfr.match("heuristic-cautious", agent, games=4, seed=5)
    assert flipped["games"] == 4
    with pytest.raises(ValueError, match="games: 3 is not an even number"):
        lcfr.match("random", "random", games=3)
    with pytest.raises(TypeError, match="a bot's name, an lcfr.Bot or an lcfr.Agent"):
        lcfr.match(1, "random", games=2)
