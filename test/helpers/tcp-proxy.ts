import net from "node:net";
import path from "node:path";
import { findRunningEmbedded } from "../../src/db/embedded.ts";
import type { TestServer } from "./server.ts";

/** How much of a chunk is kept to be read with the next one: longer than any pattern looked for. */
const TAIL = 256;

/**
 * A TCP proxy a test puts between a process and its database, to take the database away (an
 * outage) or to hold a client at a known point of its conversation (a worker inside its
 * transaction), whichever backend the run uses.
 */
export class TcpProxy {
  private readonly sockets = new Set<net.Socket>();
  private readonly clients = new Set<net.Socket>();
  private server: net.Server | undefined;
  private holding = false;
  private hold: { sent: RegExp; answered: RegExp; resolve: () => void; armed: boolean } | undefined;
  private refusing = false;
  private cut = 0;
  private cutWaiters: Array<{ count: number; resolve: () => void }> = [];
  port = 0;

  constructor(private readonly target: net.NetConnectOpts) {}

  /** Starts listening (on the same port as before, after {@link down}). */
  async up(): Promise<void> {
    const server = net.createServer((client) => this.connect(client));
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.port, "127.0.0.1", () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** Stops listening and cuts every connection. */
  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /**
   * Cuts every connection, and from now on each new one as soon as it arrives (until
   * {@link accept}): an outage whose connection attempts the test can count.
   */
  refuse(): void {
    this.refusing = true;
    this.cut = 0;
    for (const socket of this.sockets) socket.destroy();
  }

  /** Lets connections through again after {@link refuse}. */
  accept(): void {
    this.refusing = false;
  }

  /** Resolves once `count` connections were cut since {@link refuse}. */
  connectionsCut(count: number): Promise<void> {
    if (this.cut >= count) return Promise.resolve();
    return new Promise((resolve) => this.cutWaiters.push({ count, resolve }));
  }

  /**
   * Resolves once a client sent something matching `sent` (e.g. a statement's text) and the
   * database answered something matching `answered` after it (e.g. its command tag); from then on
   * nothing more of any client reaches the database, so the client is stuck right there (inside
   * its open transaction) until it goes away.
   */
  holdClientsAfter(sent: RegExp, answered: RegExp): Promise<void> {
    return new Promise((resolve) => {
      this.hold = { sent, answered, resolve, armed: false };
    });
  }

  private connect(client: net.Socket): void {
    if (this.refusing) {
      client.destroy();
      this.cut++;
      const ready = this.cutWaiters.filter((waiter) => waiter.count <= this.cut);
      this.cutWaiters = this.cutWaiters.filter((waiter) => waiter.count > this.cut);
      for (const waiter of ready) waiter.resolve();
      return;
    }
    const upstream = net.connect(this.target);
    this.clients.add(client);
    for (const socket of [client, upstream]) {
      this.sockets.add(socket);
      socket.on("close", () => {
        this.sockets.delete(socket);
        this.clients.delete(socket);
      });
      socket.on("error", () => {
        client.destroy();
        upstream.destroy();
      });
    }
    // The wire protocol carries statements and command tags as plain text; each chunk is read
    // with the tail of the one before, so a pattern split between two chunks is found too.
    let sentTail = "";
    let answeredTail = "";
    client.on("data", (chunk: Buffer) => {
      upstream.write(chunk);
      const hold = this.hold;
      if (!hold || hold.armed) return;
      const sentText = sentTail + chunk.toString("latin1");
      if (hold.sent.test(sentText)) hold.armed = true;
      sentTail = sentText.slice(-TAIL);
    });
    upstream.on("data", (chunk: Buffer) => {
      client.write(chunk);
      const hold = this.hold;
      if (!hold?.armed || this.holding) return;
      const answeredText = answeredTail + chunk.toString("latin1");
      answeredTail = answeredText.slice(-TAIL);
      if (!hold.answered.test(answeredText)) return;
      this.holding = true;
      for (const socket of this.clients) socket.pause();
      hold.resolve();
    });
    if (this.holding) client.pause();
  }
}

/** Where a process reaches `server`'s database directly, and its URL through a proxy on `port`. */
export function databaseTarget(server: Pick<TestServer, "config">): {
  target: net.NetConnectOpts;
  proxiedUrl: (port: number) => string;
} {
  if (server.config.databaseUrl) {
    const url = new URL(server.config.databaseUrl);
    return {
      target: { host: url.hostname, port: Number(url.port || 5432) },
      proxiedUrl: (port) => Object.assign(new URL(url), { host: `127.0.0.1:${port}` }).toString(),
    };
  }
  const embedded = findRunningEmbedded(server.config.dataDir);
  if (!embedded) throw new Error("the embedded database is not running");
  return {
    target: { path: path.join(embedded.socketDirectory, `.s.PGSQL.${embedded.port}`) },
    proxiedUrl: (port) => `postgres://postgres@127.0.0.1:${port}/postgres`,
  };
}
