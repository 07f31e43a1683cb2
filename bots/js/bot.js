// A Rummy Arena bot for Node.js: reads the contract from proto/ with
// @grpc/proto-loader and plays one seat, or, hosted by the platform, every seat
// of its session. It discards its highest card when it can and otherwise plays
// the first legal action.
//
//   ARENA_REFEREE=127.0.0.1:50051 ARENA_TOKEN=... node bot.js        # one match
//   ARENA_REFEREE=127.0.0.1:50051 ARENA_SESSION_KEY=... node bot.js  # a session
//
// The .proto files are read from ARENA_PROTO (set on the platform), else ../../proto.
"use strict";

const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO_ROOT = process.env.ARENA_PROTO || path.join(__dirname, "..", "..", "proto");
const RANKS = "A23456789TJQK";

function loadReferee() {
  const definition = protoLoader.loadSync("rummyarena/v1/bot.proto", {
    includeDirs: [PROTO_ROOT],
    keepCase: true,
    longs: Number,
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).rummyarena.v1;
}

// The index of the action to play among the legal actions (their text forms).
function choose(legal) {
  let best = 0;
  let bestRank = -1;
  legal.forEach((text, i) => {
    if (text.startsWith("discard ")) {
      const rank = RANKS.indexOf(text.charAt(8));
      if (rank > bestRank) {
        best = i;
        bestRank = rank;
      }
    }
  });
  return best;
}

// Play the seat of `token` on a Play stream of `client` (one Referee per process, or
// per call when none is given).
function play(address, token, shared) {
  const client = shared || new (loadReferee().Referee)(address, grpc.credentials.createInsecure());
  const call = client.Play();
  return new Promise((resolve, reject) => {
    let seat = -1;
    call.on("data", (msg) => {
      if (msg.kind === "welcome") {
        seat = msg.welcome.your_seat;
      } else if (msg.kind === "decision") {
        const d = msg.decision;
        call.write({ answer: { decision_id: d.decision_id, index: choose(d.legal_actions) } });
      } else if (msg.kind === "match_end") {
        const seats = msg.match_end.result.seats;
        const mine = seats.find((s) => s.seat === seat) || {};
        console.log(`seat ${seat}: rank ${mine.rank}, score ${mine.score}, status ${mine.status}`);
        call.end();
        resolve(msg.match_end.result);
      }
    });
    call.on("error", (err) => reject(err));
    call.on("end", () => resolve(null));
    call.write({ join: { token: token, agent: "js-bot" } });
  }).finally(() => shared || client.close());
}

// Serve the session of `key` (docs/protocol.md, "Sessions"): each Assignment is a
// seat to play on its own Play stream; a token sent again (after a reconnect) is
// not played twice. Resolves when the referee ends the session.
function serve(address, key) {
  const client = new (loadReferee().Referee)(address, grpc.credentials.createInsecure());
  const playing = new Map();
  return new Promise((resolve, reject) => {
    const stream = client.Serve({ key: key, agent: "js-bot" });
    stream.on("data", (a) => {
      if (playing.has(a.token)) return;
      const match = play(address, a.token, client)
        .catch((err) => console.error(`match ${a.match_id}, seat ${a.seat}: ${err.message}`))
        .finally(() => playing.delete(a.token));
      playing.set(a.token, match);
    });
    stream.on("error", reject);
    stream.on("end", () => Promise.all(playing.values()).then(() => resolve()));
  }).finally(() => client.close());
}

if (require.main === module) {
  const address = process.env.ARENA_REFEREE;
  const token = process.env.ARENA_TOKEN;
  const key = process.env.ARENA_SESSION_KEY;
  if (!address || !(token || key)) {
    console.error("set ARENA_REFEREE (host:port) and ARENA_TOKEN or ARENA_SESSION_KEY");
    process.exit(2);
  }
  (key ? serve(address, key) : play(address, token)).catch((err) => {
    console.error(`js-bot: ${err.message}`);
    process.exit(1);
  });
}

module.exports = { choose, play, serve };
