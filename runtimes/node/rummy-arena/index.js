// rummy-arena: the SDK of a hosted Node.js bot (docs/bots.md, "A bot in JavaScript").
//
//   const { serve } = require("rummy-arena");
//   serve((decision) => 0);  // play the first legal action, in every match
//
// serve() holds the bot's session (docs/protocol.md, "Sessions"): Referee.Serve with
// ARENA_SESSION_KEY streams an Assignment for each match the bot is seated in, and each
// is played on a Play stream of its own: Join with the seat's token, then an Answer to
// every Decision, until the MatchEnd. The contract is read from the .proto files at
// ARENA_PROTO, where the platform puts them. The stream's heartbeats (an Assignment
// with `heartbeat` set) are skipped. With ARENA_TLS_CA (a PEM file: a self-signed
// platform) or ARENA_TLS=1 (the system's authorities) the referee is dialled over TLS.
"use strict";

const fs = require("fs");
const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

// The referee's service, from the .proto files (ARENA_PROTO, else the repository's proto/).
function loadReferee(protoRoot) {
  const root = protoRoot || process.env.ARENA_PROTO || path.join(__dirname, "..", "..", "..", "proto");
  const definition = protoLoader.loadSync("rummyarena/v1/bot.proto", {
    includeDirs: [root],
    keepCase: true,
    longs: String, // decision ids are uint64: kept exact, sent back as they came
    enums: String,
    defaults: true,
    oneofs: true,
  });
  return grpc.loadPackageDefinition(definition).rummyarena.v1;
}

// Play one match on its own Play stream: `choose(decision)` returns the index of the
// legal action to play (or its text). Resolves with the match's result, or null.
function playMatch(client, assignment, choose, agent) {
  return new Promise((resolve, reject) => {
    const call = client.Play();
    let seat = assignment.seat;
    call.on("data", (msg) => {
      if (msg.kind === "welcome") {
        seat = msg.welcome.your_seat;
      } else if (msg.kind === "decision") {
        const d = msg.decision;
        let answer;
        try {
          // what the bot sees: its view, the legal actions' texts, the game and seat
          const choice = choose({
            view: d.view,
            legal: d.legal_actions,
            events: d.events,
            advice: d.advice,
            game: assignment.game,
            seat: seat,
            decisionId: d.decision_id,
          });
          answer = typeof choice === "string" ? { text: choice } : { index: choice };
        } catch (err) {
          // the referee is told, and plays its default for this seat
          call.write({ error: { decision_id: d.decision_id, message: String(err && err.stack || err) } });
          return;
        }
        call.write({ answer: { decision_id: d.decision_id, ...answer } });
      } else if (msg.kind === "match_end") {
        call.end();
        resolve(msg.match_end.result);
      } // notices (a timeout, an invalid answer) need no answer
    });
    call.on("error", reject);
    call.on("end", () => resolve(null));
    call.write({ join: { token: assignment.token, agent: agent } });
  });
}

// The channel credentials: TLS when ARENA_TLS_CA or ARENA_TLS=1 asks for it, else plain.
function credentials(options) {
  const ca = options.tlsCa || process.env.ARENA_TLS_CA;
  if (ca) {
    return grpc.credentials.createSsl(fs.readFileSync(ca));
  }
  if (options.tls || process.env.ARENA_TLS === "1") {
    return grpc.credentials.createSsl();
  }
  return grpc.credentials.createInsecure();
}

// Serve the bot's session: every match it is seated in, several at once if so, each
// played with `choose`. Resolves when the referee ends the session.
function serve(choose, options = {}) {
  const address = options.referee || process.env.ARENA_REFEREE;
  const key = options.key || process.env.ARENA_SESSION_KEY;
  const agent = options.agent || process.env.ARENA_BOT_NAME || "node-bot";
  if (!address || !key) {
    return Promise.reject(new Error("set ARENA_REFEREE and ARENA_SESSION_KEY (the platform does)"));
  }
  const v1 = loadReferee(options.proto);
  // grpc-js dials "unix:/path" as a Unix socket, "host:port" over TCP
  const client = new v1.Referee(address, credentials(options));
  const playing = new Map(); // by seat token: an assignment sent again is not played twice
  return new Promise((resolve, reject) => {
    const stream = client.Serve({ key: key, agent: agent });
    stream.on("data", (assignment) => {
      if (assignment.heartbeat || playing.has(assignment.token)) return;
      const where = `match ${assignment.match_id}, seat ${assignment.seat}`;
      const match = playMatch(client, assignment, choose, agent)
        .then(() => console.log(`${where}: over`))
        .catch((err) => console.error(`${where}: ${err.message}`)) // the session goes on
        .finally(() => playing.delete(assignment.token));
      playing.set(assignment.token, match);
    });
    stream.on("error", (err) => {
      client.close();
      reject(err);
    });
    stream.on("end", () => {
      // the session is over: let the matches in progress end first
      Promise.all(playing.values()).then(() => {
        client.close();
        resolve();
      });
    });
  });
}

// Serve from a bot's main module: a failed session exits with its message and code 1.
function run(choose, options) {
  serve(choose, options).catch((err) => {
    console.error(`rummy-arena: ${err.message}`);
    process.exit(1);
  });
}

module.exports = { serve, run, playMatch, loadReferee, credentials };
