#!/usr/bin/env node
// A heuristic Aluette bot for Node (v20+), no npm dependencies: a starting point for bot authors.
//
// Deterministic. Tells its partner its top cards and aces (truthfully) when signals are on, takes
// tricks cheaply, leaves them to a winning partner, spoils an opponent's trick it cannot beat,
// and throws its weakest card otherwise. Talks line-delimited JSON on stdin/stdout, or over TCP
// with --connect HOST:PORT --token T. See sample-bots/README.md ("Fast bots" there says why it
// skips some lines unread) and spec/protocol.md.
'use strict';

const net = require('net');
const readline = require('readline');

// Strength level of a card code (1 strongest, 19 weakest).
const TOP = { '3o': 1, '3c': 2, '2o': 3, '2c': 4, '9c': 5, '9o': 6, '2b': 7, '2s': 8 };
const RANK = { A: 9, K: 10, C: 11, J: 12, 9: 13, 8: 14, 7: 15, 6: 16, 5: 17, 4: 18, 3: 19 };
const SIGNAL_OF = {
  '3o': 'monsieur', '3c': 'madame', '2o': 'borgne', '2c': 'vache',
  '9c': 'grand-neuf', '9o': 'petit-neuf', '2b': 'deux-de-chene', '2s': 'deux-d-ecrit',
};
const CARD_OF = Object.fromEntries(Object.entries(SIGNAL_OF).map(([c, s]) => [s, c]));
const ALL_CARDS = [];
for (const r of 'A23456789JCK') for (const s of 'ocsb') ALL_CARDS.push(r + s);

// The level of every card, computed once (level('3o') === 1), and the cards strongest first.
const LEVEL = Object.fromEntries(ALL_CARDS.map((c) => [c, TOP[c] || RANK[c[0]]]));
const level = (card) => LEVEL[card];
const STRONGEST = [...ALL_CARDS].sort((a, b) => level(a) - level(b));
// Weakest first, ties broken by code so play is deterministic.
const weakestFirst = (cards) =>
  [...cards].sort((a, b) => level(b) - level(a) || (a < b ? -1 : a > b ? 1 : 0));

function parseArgs(argv) {
  const args = { name: 'js-heuristic', connect: null, token: null };
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    if (flag === '--name' || flag === '--connect' || flag === '--token') {
      args[flag.slice(2)] = argv[++i];
    } else {
      process.stderr.write(`bot.js: unknown argument ${flag}\n`);
      process.exit(2);
    }
  }
  return args;
}

const state = {
  seat: 0,
  partner: 2,
  offered: true, // the referee offered the "signals" feature in hello
  signalsOn: true,
  chantSecond: 'dealer',
  gone: new Set(), // cards out of play: played, or discarded by us
  partnerHolds: new Set(), // top cards our partner told us about
};

function cardSignals(hand) {
  if (!state.signalsOn) return [];
  const tops = weakestFirst(hand).reverse().filter((c) => SIGNAL_OF[c]).map((c) => SIGNAL_OF[c]);
  const aces = hand.filter((c) => c[0] === 'A').length;
  const out = [...tops, `aces:${aces}`];
  if (tops.length === 0 && aces === 0) out.push('bad-hand');
  return out;
}

function opening(msg) {
  const answer = { type: 'opening', id: msg.id };
  if (msg.vote) {
    const dealer = msg.dealer;
    const second = state.chantSecond === 'dealer' ? dealer : (dealer + 2) % 4;
    const receives = state.seat === (dealer + 1) % 4 || state.seat === second;
    const strong = msg.hand.filter((c) => level(c) <= 8).length;
    answer.accept = receives || strong <= 1;
  }
  const signals = cardSignals(msg.hand);
  if (signals.length) answer.signals = signals;
  return answer;
}

function discard(msg) {
  // The 6 weakest: legal under free choice and keep-highest alike.
  const cards = weakestFirst(msg.hand).slice(0, 6);
  for (const c of cards) state.gone.add(c);
  return { type: 'discard', id: msg.id, cards };
}

function choose(msg) {
  const hand = msg.hand;
  const table = msg.table || [];
  for (const t of table) state.gone.add(t.card);
  const mine = weakestFirst(hand);
  // The strongest card an opponent may still hold (the talon's hidden cards included).
  const held = new Set(hand);
  const unknown = STRONGEST.find(
    (c) => !held.has(c) && !state.gone.has(c) && !state.partnerHolds.has(c),
  );
  const threat = unknown ? level(unknown) : 99;
  if (table.length === 0) {
    const best = mine[mine.length - 1];
    return level(best) < threat ? best : mine[0];
  }
  const bestLevel = Math.min(...table.map((t) => level(t.card)));
  const atBest = table.filter((t) => level(t.card) === bestLevel);
  const winner = atBest.length === 1 ? atBest[0].seat : null; // null: spoiled so far
  const beats = mine.filter((c) => level(c) < bestLevel); // cheapest first
  const equal = mine.filter((c) => level(c) === bestLevel);
  const others = mine.filter((c) => level(c) > bestLevel);
  const low = others.length ? others[0] : mine[0];

  if (winner === state.partner) return others.length ? others[0] : beats.length ? beats[0] : mine[0];
  if (table.length === 3) {
    if (beats.length) return beats[0];
    if (winner !== null && equal.length) return equal[0]; // spoil the opponent's trick
    return low;
  }
  const safe = beats.filter((c) => level(c) < threat);
  if (safe.length) return safe[0];
  if (beats.length && winner !== null) return beats[0];
  if (winner !== null && equal.length) return equal[0];
  return low;
}

function handle(msg, send) {
  switch (msg.type) {
    case 'hello': {
      if (msg.protocol !== 1) {
        process.stderr.write(`bot.js: unsupported protocol ${msg.protocol}\n`);
        process.exit(1);
      }
      state.offered = Array.isArray(msg.features) && msg.features.includes('signals');
      const answer = { type: 'hello', id: msg.id, name: args.name, version: '1.0' };
      if (args.token !== null) answer.token = args.token;
      send(answer);
      break;
    }
    case 'game': {
      seated = true;
      const rules = msg.rules || {};
      state.seat = msg.seat;
      state.partner = msg.partner;
      state.signalsOn = state.offered && rules.signals !== undefined && rules.signals !== 'off';
      state.chantSecond = rules['chant-second'] || 'dealer';
      break;
    }
    case 'deal':
      state.gone.clear();
      state.partnerHolds.clear();
      break;
    case 'opening':
      send(opening(msg));
      break;
    case 'discard':
      send(discard(msg));
      break;
    case 'play':
      send({ type: 'play', id: msg.id, card: choose(msg) });
      break;
    case 'played':
      state.gone.add(msg.card);
      break;
    case 'signal':
      if (msg.from === state.partner && CARD_OF[msg.signal]) state.partnerHolds.add(CARD_OF[msg.signal]);
      break;
    case 'error':
      process.stderr.write(`bot.js: referee error: ${JSON.stringify(msg)}\n`);
      break;
    case 'bye':
      if (!seated) refused(`the referee refused this bot: ${msg.reason}`);
      process.exit(0);
      break;
    default:
      break; // vote, chant, trick, deal_over, game_over and unknown types
  }
}

const args = parseArgs(process.argv.slice(2));
// Over TCP, a bye or the end of the connection before the first game means the referee refused
// this bot (a wrong token, a seat already taken, a full lobby): say why, and fail.
let seated = !args.connect;
function refused(why) {
  process.stderr.write(`bot.js: ${why}\n`);
  process.exit(1);
}
let input;
let send;
if (args.connect) {
  const at = args.connect.lastIndexOf(':');
  const socket = net.connect({ host: args.connect.slice(0, at), port: Number(args.connect.slice(at + 1)) });
  socket.setNoDelay(true);
  socket.on('error', (e) => {
    process.stderr.write(`bot.js: ${e.message}\n`);
    process.exit(1);
  });
  input = socket;
  send = (obj) => socket.write(JSON.stringify(obj) + '\n');
} else {
  input = process.stdin;
  send = (obj) => process.stdout.write(JSON.stringify(obj) + '\n');
}

// The referee starts each line with its type, as in {"type":"trick",... so the notices this bot
// does not use are skipped without parsing them. A line written any other way is parsed in full.
const IGNORED = ['vote', 'chant', 'trick', 'deal_over', 'game_over'].map((t) => `{"type":"${t}"`);

function onLine(line) {
  if (IGNORED.some((prefix) => line.startsWith(prefix))) return;
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    process.stderr.write(`bot.js: bad line ${JSON.stringify(line)}\n`);
    return;
  }
  if (msg && typeof msg === 'object') handle(msg, send);
}

const rl = readline.createInterface({ input, crlfDelay: Infinity });
rl.on('line', onLine);
rl.on('close', () => {
  if (!seated) refused('the referee closed the connection before the first game');
  process.exit(0);
});
