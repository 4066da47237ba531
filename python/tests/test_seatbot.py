"""aluette.SeatBot, the bridge's engine, fed a conversation of spec/protocol.md line by line:
what it answers by itself, what it asks the policy, and the answer lines it writes."""
import json

import numpy as np
import pytest

import aluette
from aluette import bot as B

HELLO = b'{"type":"hello","id":1,"protocol":1,"features":["signals","persistent","surrender"],"time_ms":10000}\n'
GAME = (b'{"type":"game","game":1,"seat":1,"partner":3,"players":["a","b","c","d"],"rules":'
        b'{"seating":"given","chant":"on","chant-second":"dealer","discard":"free",'
        b'"all-spoiled":"nothing","mordienne":"on","mordienne-run":2,"deals":5,"on-tie":"draw",'
        b'"signals":"partner","signal-leak":0.25,"signal-truth":"truthful"},'
        b'"clock":{"handshake_ms":10000,"answer_ms":1000,"bank_ms":5000}}\n')
DEAL = b'{"type":"deal","deal":1,"dealer":0,"hand":["2o","Co","5s","Cs","Ks","Ab","6b","9b","Cb"]}\n'
PLAY = (b'{"type":"play","id":4,"deal":1,"trick":1,"leader":1,"table":[],'
        b'"hand":["2o","Co","5s","Cs","Ks","Ab","6b","9b","Cb"],"won":[0,0,0,0],"score":[0,0],'
        b'"time_ms":1000,"bank_ms":5000}\n')
CODES = [r + s for s in "ocsb" for r in "A23456789JCK"]


def test_a_conversation():
    bot = aluette.SeatBot("t", "tok")
    what, line = bot.feed(HELLO)
    hello = json.loads(line)
    assert what == "answer" and hello["features"] == ["surrender"] and hello["token"] == "tok"
    assert bot.feed(GAME) is None and bot.feed(DEAL) is None
    assert bot.feed(b'{"type":"opening","id":2,"deal":1,"dealer":0,"vote":false,"votes":[],'
                    b'"hand":["2o","Co","5s","Cs","Ks","Ab","6b","9b","Cb"],"time_ms":1000,'
                    b'"bank_ms":5000}\n') == ("answer", b'{"type":"opening","id":2}\n')
    assert bot.feed(PLAY) == ("ask", None)
    assert bot.asked == "play"
    mask = np.frombuffer(bot.action_mask(), np.int8)
    held = {CODES[i] for i in np.flatnonzero(mask[:48])}
    assert held == {"2o", "Co", "5s", "Cs", "Ks", "Ab", "6b", "9b", "Cb"}
    with pytest.raises(ValueError, match="not legal"):
        bot.act(0)  # Ao, not held
    borgne = 98 + aluette.SIGNALS.index("borgne")
    assert mask[borgne] and not mask[98 + aluette.SIGNALS.index("monsieur")]
    assert bot.act(borgne) is None  # a sub-step: the question stays open
    assert not np.frombuffer(bot.action_mask(), np.int8)[borgne]  # once an answer
    answer = json.loads(bot.act(CODES.index("Ab")))
    assert answer == {"type": "play", "id": 4, "card": "Ab", "signals": ["borgne"]}
    assert bot.asked is None
    assert bot.feed(b'{"type":"bye","reason":"match over"}\n') == ("bye", None)


def test_the_bridge_plays_the_first_legal_action_for_an_illegal_choice(capsys):
    mask = np.zeros(113, np.int8)
    mask[[5, 7]] = 1
    assert B.legal_or_first(7, mask) == 7
    assert B.legal_or_first(3, mask) == 5
    assert B.legal_or_first("x", mask) == 5
    assert "not legal" in capsys.readouterr().err
