// A network's round trip in front of a server, for the benchmark (scripts/bench.ts): a TCP proxy that
// delays every chunk by half the round trip each way, and holds a new connection's first byte for the
// round trip its handshake costs. The reference's own latency (--latency-ms) delays its answers only:
// a request on a new connection then costs what one on a kept-alive connection costs, where across a
// network it costs a round trip more (two or three over TLS). Each connection the suite opens shows
// here: network-300 against remote-300 (npm run bench) is what the run's new connections cost.
import net from 'node:net';

export interface NetworkDelay {
  /** The proxy's origin (http://127.0.0.1:PORT). */
  origin: string;
  /** Connections opened through it so far. */
  connections: () => number;
  stop: () => Promise<void>;
}

/** Listens on a free loopback port and forwards to `upstream` (host:port), every round trip `roundTripMs` long. */
export function delayNetwork(upstream: { host: string; port: number }, roundTripMs: number): Promise<NetworkDelay> {
  const half = roundTripMs / 2;
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    connections += 1;
    const onward = net.connect(upstream.port, upstream.host);
    for (const s of [client, onward]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    }
    // The handshake: the client's first byte leaves one round trip after it connected, then travels half of one.
    const readyAt = Date.now() + roundTripMs;
    client.on('data', (chunk) => {
      const now = Date.now();
      setTimeout(() => onward.write(chunk), Math.max(now, readyAt) + half - now);
    });
    onward.on('data', (chunk) => setTimeout(() => client.write(chunk), half));
    client.on('end', () => setTimeout(() => onward.end(), half));
    onward.on('end', () => setTimeout(() => client.end(), half));
    client.on('error', () => onward.destroy());
    onward.on('error', () => client.destroy());
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({
        origin: `http://127.0.0.1:${port}`,
        connections: () => connections,
        stop: () =>
          new Promise((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}
