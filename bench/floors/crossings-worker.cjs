// The crossings floor's Piscina task (bench/floors/crossings-floor.ts): the message back as it came.
module.exports = (msg) => msg;
