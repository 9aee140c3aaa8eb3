/**
 * A download written as it is read (the data export, the console's CSV exports): each chunk goes to the response as
 * soon as it is ready, waiting while the reader is behind, so no export is held in memory whole. Whatever may refuse
 * it is asked before the first byte; a failure after that ends the connection, so a reader never takes a cut-off file
 * for a whole one.
 */
import type { Response } from 'express';
import type { Logger } from '@storefront/logging';

/** Where a download goes: each part is written as it is ready, waiting while the reader is behind. */
export type DownloadSink = (chunk: string) => Promise<void>;

export interface Download {
  contentType: string;
  cacheControl: string;
  fileName: string;
  /** What the log says when it fails after it started (no personal data). */
  what: string;
}

export async function streamDownload(
  logger: Logger,
  res: Response,
  download: Download,
  write: (sink: DownloadSink) => Promise<void>,
): Promise<void> {
  res.status(200).set({
    'Content-Type': download.contentType,
    'Cache-Control': download.cacheControl,
    'Content-Disposition': `attachment; filename="${download.fileName}"`,
  });
  try {
    await write(
      (chunk) =>
        new Promise<void>((resolve) => {
          if (res.write(chunk)) resolve();
          else res.once('drain', resolve);
        }),
    );
    res.end();
  } catch (error) {
    logger.error({ err: error }, `${download.what} failed after it started; the connection is ended`);
    res.destroy();
  }
}
