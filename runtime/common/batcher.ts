// Room: runtime/common (see README.md here). IPC writes coalesced per event-loop turn, on both ends of the channel
// between the HTTP process (src/plugin-host/call-protocol.ts) and the runtime process (runtime/process/server.ts).

/**
 * Coalesces the messages sent during one event-loop turn into one IPC write: under load each write is a
 * syscall on both sides, and they dominated the HTTP process's profile.
 */
export function createBatcher<M extends { t: string }>(
  write: (msg: M | { t: 'batch'; msgs: M[] }) => void,
): (msg: M) => void {
  let queue: M[] = [];
  const flush = () => {
    const msgs = queue;
    queue = [];
    write(msgs.length === 1 ? msgs[0]! : { t: 'batch', msgs });
  };
  return (msg) => {
    if (queue.push(msg) === 1) setImmediate(flush);
  };
}
