/**
 * Where mail goes: an SMTP server (SMTP_URL), or with none configured a local mailbox, one .eml
 * file per mail under DATA_DIR/mailbox, so the embedded default shows every mail it would send.
 * Both build the message with nodemailer, so a mailbox file is exactly what SMTP would carry.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool';
import type { Mail } from './outbox';

export interface MailTransport {
  /** Where mail goes, safe to log (never the SMTP URL, which may carry credentials). */
  readonly destination: string;
  send(mail: Mail): Promise<void>;
  close(): void;
}

/**
 * The same mail sent twice (a crash between sending and recording it) carries the same Message-ID, so mail clients show
 * it once.
 */
function messageOf(mail: Mail, from: string) {
  const domain = /@([^>\s]+)>?\s*$/.exec(from)?.[1] ?? 'localhost';
  return {
    from,
    to: mail.to,
    subject: mail.subject,
    text: mail.text,
    html: mail.html,
    ...(mail.headers ? { headers: mail.headers } : {}),
    messageId: `<${createHash('sha256').update(mail.key).digest('hex').slice(0, 32)}@${domain}>`,
  };
}

/**
 * A transport nodemailer makes with the first mail sent, not at start: a process that sends no mail never loads it
 * (decision 1344). Closing closes it once made.
 */
function madeOnFirstSend(make: (nodemailer: typeof import('nodemailer')) => Transporter) {
  let made: Promise<Transporter> | undefined;
  return {
    transporter: () => (made ??= import('nodemailer').then(make)),
    close: () => void made?.then((transporter) => transporter.close()),
  };
}

export function smtpTransport(url: string, from: string, timeoutMs: number): MailTransport {
  const pool = madeOnFirstSend((nodemailer) =>
    nodemailer.createTransport({
      url,
      pool: true,
      maxConnections: 2,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    } satisfies SMTPPool.Options),
  );
  const { hostname, port } = new URL(url);
  return {
    destination: `smtp://${hostname}${port ? `:${port}` : ''}`,
    async send(mail) {
      await (await pool.transporter()).sendMail(messageOf(mail, from));
    },
    close: pool.close,
  };
}

/** Files named `<time>-<key>.eml`, written whole (a temporary file renamed) and readable by this user only. */
export function mailboxTransport(dir: string, from: string, now: () => number): MailTransport {
  const composer = madeOnFirstSend((nodemailer) =>
    nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
  );
  return {
    destination: path.resolve(dir),
    async send(mail) {
      const { message } = (await (await composer.transporter()).sendMail(messageOf(mail, from))) as { message: Buffer };
      await fs.mkdir(dir, { recursive: true, mode: 0o700 });
      const stamp = new Date(now()).toISOString().replace(/[:.]/g, '-');
      const name = `${stamp}-${mail.key.replace(/[^A-Za-z0-9._-]/g, '_')}.eml`;
      const partial = path.join(dir, `.${name}.partial`);
      await fs.writeFile(partial, message, { mode: 0o600 });
      await fs.rename(partial, path.join(dir, name));
    },
    close: composer.close,
  };
}
