/**
 * A TCP relay on 127.0.0.1 in front of a real MySQL or Redis that a test can break without
 * touching the server itself: `freeze()` keeps every connection open but relays nothing more
 * (a hung server), `refuse()` closes the port and drops every connection (a stopped server).
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { TestStores } from './stores';

export interface FaultProxy {
  port: number;
  /** `url` with its host and port replaced by the relay's. */
  through(url: string): string;
  freeze(): void;
  refuse(): Promise<void>;
  close(): Promise<void>;
}

export async function startFaultProxy(upstreamUrl: string): Promise<FaultProxy> {
  const upstream = new URL(upstreamUrl);
  const sockets = new Set<net.Socket>();
  let frozen = false;
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => socket.destroy());
  };
  const server = net.createServer((client) => {
    track(client);
    // Frozen: the connection is accepted and its bytes are read, but nothing ever answers.
    if (frozen) return void client.resume();
    const relayed = net.connect(Number(upstream.port), upstream.hostname);
    track(relayed);
    client.pipe(relayed);
    relayed.pipe(client);
    client.on('close', () => relayed.destroy());
    relayed.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const refuse = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    });
  return {
    port,
    through(url) {
      const relayed = new URL(url);
      relayed.hostname = '127.0.0.1';
      relayed.port = String(port);
      return relayed.toString();
    },
    freeze() {
      frozen = true;
      for (const socket of sockets) {
        socket.unpipe();
        socket.resume();
      }
    },
    refuse,
    close: () => (server.listening ? refuse() : Promise.resolve()),
  };
}

/** The run's stores reached through one relay for MySQL and one for Redis (MySQL backend only). */
export async function storesThroughFaultProxies(
  stores: TestStores,
): Promise<{ stores: TestStores; mysql: FaultProxy; redis: FaultProxy }> {
  const anyMysqlUrl = stores.mysqlUrlFor('any');
  if (!anyMysqlUrl || !stores.redisUrl) throw new Error('fault proxies need the MySQL + Redis backend');
  const mysql = await startFaultProxy(anyMysqlUrl);
  const redis = await startFaultProxy(stores.redisUrl);
  return {
    mysql,
    redis,
    stores: {
      ...stores,
      mysqlUrlFor: (service) => {
        const url = stores.mysqlUrlFor(service);
        return url && mysql.through(url);
      },
      redisUrl: redis.through(stores.redisUrl),
    },
  };
}
