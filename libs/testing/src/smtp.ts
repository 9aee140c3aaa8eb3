/**
 * A real SMTP server for tests (smtp-server), parsing every mail it accepts (mailparser). It can
 * be told to misbehave: refuse mail with a 451, hold a message without answering (the client's
 * timeout fires), or drop the connection in the middle of a message. It can be stopped and
 * started again on the same port, like a mail server that is down for a while.
 */
import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';

export type SmtpBehaviour = 'accept' | 'refuse' | 'hang' | 'drop';

export interface TestSmtpServer {
  /** smtp://127.0.0.1:<port>, for SMTP_URL. */
  url: string;
  /** Every mail accepted so far, in order. */
  received: ParsedMail[];
  /** How the server treats the next messages. */
  behaviour: SmtpBehaviour;
  /** Messages that reached the DATA stage, accepted or not. */
  attempts: number;
  /** Resolves once `count` mails were accepted; fails after `timeoutMs`. */
  waitForMails(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  /** Stops listening (the port refuses connections) until `start()`. */
  pause(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export async function startTestSmtpServer(): Promise<TestSmtpServer> {
  let port = 0;
  let server: SMTPServer | undefined;
  const held = new Set<Socket>();
  const waiters: Array<() => void> = [];
  const state: TestSmtpServer = {
    url: '',
    received: [],
    behaviour: 'accept',
    attempts: 0,
    waitForMails: (count, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (state.received.length < count) return false;
          clearTimeout(timer);
          resolve(state.received.slice());
          return true;
        };
        const timer = setTimeout(
          () => reject(new Error(`expected ${count} mails within ${timeoutMs} ms, received ${state.received.length}`)),
          timeoutMs,
        );
        const wait = () => {
          if (!check()) waiters.push(wait);
        };
        wait();
      }),
    pause: () => close(),
    start: () => listen(),
    stop: () => close(),
  };

  const socketOf = (session: SMTPServerSession): Socket | undefined => {
    for (const connection of (server as unknown as { connections: Set<{ id: string; _socket: Socket }> }).connections) {
      if (connection.id === session.id) return connection._socket;
    }
    return undefined;
  };

  async function onData(
    stream: SMTPServerDataStream,
    session: SMTPServerSession,
    callback: (error?: Error | null) => void,
  ): Promise<void> {
    state.attempts += 1;
    const behaviour = state.behaviour;
    if (behaviour === 'drop') {
      stream.once('data', () => socketOf(session)?.destroy());
      stream.resume();
      return;
    }
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    if (behaviour === 'hang') {
      const socket = socketOf(session);
      if (socket) held.add(socket);
      return;
    }
    if (behaviour === 'refuse') {
      callback(Object.assign(new Error('Mailbox temporarily unavailable'), { responseCode: 451 }));
      return;
    }
    state.received.push(await simpleParser(Buffer.concat(chunks)));
    callback();
    for (const wake of waiters.splice(0)) wake();
  }

  function listen(): Promise<void> {
    const instance = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      closeTimeout: 50,
      onData: (stream, session, callback) => {
        onData(stream, session, callback).catch((error: unknown) => callback(error as Error));
      },
    });
    instance.on('error', () => undefined);
    server = instance;
    return new Promise((resolve) => {
      instance.listen(port, '127.0.0.1', () => {
        port = (instance.server.address() as AddressInfo).port;
        state.url = `smtp://127.0.0.1:${port}`;
        resolve();
      });
    });
  }

  function close(): Promise<void> {
    const closing = server;
    server = undefined;
    for (const socket of held) socket.destroy();
    held.clear();
    return new Promise((resolve) => (closing ? closing.close(() => resolve()) : resolve()));
  }

  await listen();
  return state;
}
