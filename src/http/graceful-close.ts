// Closes an HTTP server gracefully: no new connections, requests in flight finish, sockets cut at a deadline.
import type { Server } from 'node:http';

/** How often idle keep-alive sockets are closed while draining: a socket goes idle when its last answer is sent. */
const SWEEP_MS = 100;

/**
 * Resolves once every connection has ended; `cut` says whether the deadline came first and the connections still
 * open were destroyed.
 */
export function closeGracefully(server: Server, deadline: number): Promise<{ cut: boolean }> {
  return new Promise((resolve) => {
    let cut = false;
    const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
    const force = setTimeout(
      () => {
        cut = true;
        server.closeAllConnections();
      },
      Math.max(0, deadline - Date.now()),
    );
    // The callback also runs (with an error) for a server that was not listening: nothing to wait for then.
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(force);
      resolve({ cut });
    });
    server.closeIdleConnections();
  });
}
