// A Rummy Arena bot for Node.js: reads the contract from proto/ with
// @grpc/proto-loader and plays one seat. It discards its highest card when it
// can and otherwise plays the first legal action.
//
//   ARENA_REFEREE=127.0.0.1:50051 ARENA_TOKEN=... node bot.js
"use strict";

const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO_ROOT = path.join(__dirname, "..", "..", "proto");
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

function play(address, token) {
  const v1 = loadReferee();
  const client = new v1.Referee(address, grpc.credentials.createInsecure());
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
  }).finally(() => client.close());
}

if (require.main === module) {
  const address = process.env.ARENA_REFEREE;
  const token = process.env.ARENA_TOKEN;
  if (!address || !token) {
    console.error("set ARENA_REFEREE (host:port) and ARENA_TOKEN");
    process.exit(2);
  }
  play(address, token).catch((err) => {
    console.error(`js-bot: ${err.message}`);
    process.exit(1);
  });
}

module.exports = { choose, play };
