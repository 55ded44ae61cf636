"""Lost Cities Deep CFR from Python (docs/python.md).

The engine (Rules, Game, State, GameRecord, deal), a batched environment (VecEnv), the players
(Bot, Agent, match) and, in lcfr.openspiel, Lost Cities as an OpenSpiel game. Errors are Python
exceptions carrying the messages of the lcfr command line: ValueError for bad input,
FileNotFoundError for a missing file.
"""

from lcfr._lcfr import (
    Agent,
    Bot,
    Game,
    GameRecord,
    Rules,
    State,
    VecEnv,
    bots,
    deal,
    match,
)

__all__ = [
    "Agent",
    "Bot",
    "Game",
    "GameRecord",
    "Rules",
    "State",
    "VecEnv",
    "bots",
    "deal",
    "match",
]
