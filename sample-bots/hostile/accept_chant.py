#!/usr/bin/env python3
"""Not an attack: a correct bot that accepts every chant. The chant is taken only when all four
seats accept, so tests of the discard attacks seat three of these next to the attacker.

Usage: accept_chant.py PIDFILE
"""
from hostile_bot import Bot, main


class AcceptChant(Bot):
    accept = True


main(AcceptChant)
